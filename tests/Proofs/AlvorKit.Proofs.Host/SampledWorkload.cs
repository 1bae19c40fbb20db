using System.Runtime.CompilerServices;

// Types only the sampled-allocation workload allocates. Every size is a multiple of 8 (what
// the GC allocates and what AllocationSampled reports are then the same figure): a class's
// size is 16 (header, MethodTable) plus its fields, an array's 24 plus its elements.
#pragma warning disable CA1051, CA1815, CA1819, IDE0044

namespace AlvorKit.Proofs.Host;

/// <summary>24 bytes.</summary>
public sealed class SampledTiny
{
    public long A;
}

/// <summary>80 bytes.</summary>
public sealed class SampledSmall
{
    public long A, B, C, D, E, F, G, H;
}

/// <summary>An element of 16 bytes: SampledCell[n] is 24 + 16 n bytes (n from 32 to 63).</summary>
public struct SampledCell
{
    public long A;
    public long B;
}

/// <summary>Thirty longs inline.</summary>
[InlineArray(30)]
public struct SampledLongs30
{
    private long _element0;
}

/// <summary>256 bytes.</summary>
public sealed class SampledWide
{
    public SampledLongs30 Values;
}

/// <summary>An element of 8 bytes: SampledWord[250] is 2,024 bytes.</summary>
public struct SampledWord
{
    public long V;
}

/// <summary>32 bytes; allocated only outside the windows.</summary>
public sealed class SampledOutside
{
    public long A, B;
}

/// <summary>The large-object arrays' element (16 bytes).</summary>
public struct SampledLargeCell
{
    public long A;
    public long B;
}

/// <summary>The pinned arrays' element (8 bytes).</summary>
public struct SampledPinnedCell
{
    public long A;
}

/// <summary>
/// Known allocations of five proof-only types, each in its own never-inlined, fully optimized
/// method with one allocation statement, whose line Site records (CallerLineNumber) for the
/// stack proofs. Counts are per unit of `scale`; a unit allocates about 25.6 MB of each type,
/// about 250 AllocationSampled events of each at the runtime's 1 per 102,400 bytes.
/// </summary>
public static class SampledWorkload
{
    public const string Tiny = "AlvorKit.Proofs.Host.SampledTiny";
    public const string Small = "AlvorKit.Proofs.Host.SampledSmall";
    public const string Cells = "AlvorKit.Proofs.Host.SampledCell[]";
    public const string Wide = "AlvorKit.Proofs.Host.SampledWide";
    public const string Words = "AlvorKit.Proofs.Host.SampledWord[]";
    public const string Outside = "AlvorKit.Proofs.Host.SampledOutside";
    public const string LargeCells = "AlvorKit.Proofs.Host.SampledLargeCell[]";
    public const string PinnedCells = "AlvorKit.Proofs.Host.SampledPinnedCell[]";

    /// <summary>Elements of a SampledWord array, and of a large and a pinned array.</summary>
    public const int WordLength = 250, LargeLength = 6250, PinnedLength = 100;

    /// <summary>Objects of each type per unit of scale (about 25.6 MB each).</summary>
    public static readonly (string Type, int Count, string Method)[] Types =
    [
        (Tiny, 1_070_000, nameof(AllocateTiny)),
        (Small, 320_000, nameof(AllocateSmall)),
        (Cells, 32_650, nameof(AllocateCells)),
        (Wide, 100_000, nameof(AllocateWide)),
        (Words, 12_650, nameof(AllocateWords)),
    ];

    /// <summary>The allocation statement's line of each method, by method name.</summary>
    public static readonly Dictionary<string, int> Lines = [];

    private static object? _sink;
    private static int _lineTiny, _lineSmall, _lineCells, _lineWide, _lineWords, _lineOutside, _lineLarge, _linePinned;

    /// <summary>Each type's object count for `scale` units, in the order of <see cref="Types"/>.</summary>
    public static int[] Counts(double scale) => [.. Types.Select(t => (int)Math.Round(t.Count * scale))];

    /// <summary>Allocates `counts` (from <see cref="Counts"/>) of the five types, and nothing else.</summary>
    public static void Run(int[] counts)
    {
        AllocateTiny(counts[0]);
        AllocateSmall(counts[1]);
        AllocateCells(counts[2]);
        AllocateWide(counts[3]);
        AllocateWords(counts[4]);
        _sink = null;
    }

    /// <summary>Records each method's allocation line in <see cref="Lines"/> (after a run: it allocates).</summary>
    public static void RecordLines()
    {
        Lines[nameof(AllocateTiny)] = _lineTiny;
        Lines[nameof(AllocateSmall)] = _lineSmall;
        Lines[nameof(AllocateCells)] = _lineCells;
        Lines[nameof(AllocateWide)] = _lineWide;
        Lines[nameof(AllocateWords)] = _lineWords;
    }

    /// <summary>The size in bytes of each object of the fixed-size types (the cell arrays vary).</summary>
    public static long FixedSize(string type) => type switch
    {
        Tiny => 24,
        Small => 80,
        Wide => 256,
        Words => 24 + 8L * WordLength,
        Outside => 32,
        LargeCells => 24 + 16L * LargeLength,
        PinnedCells => 24 + 8L * PinnedLength,
        _ => throw new ArgumentException($"{type} has no fixed size"),
    };

    /// <summary>The size in bytes of the i-th SampledCell array AllocateCells allocates.</summary>
    public static long CellArraySize(int i) => 24 + 16L * CellLength(i);

    // 32 to 63 elements (536 to 1,032 bytes). Sizes within a factor of two keep the count
    // estimate's variance estimate steady; a 1-to-64 spread lets the few smallest arrays'
    // events (weighing 1/p each) swing the interval's width by a factor of 1.7.
    private static int CellLength(int i) => 32 + (i & 31);

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateTiny(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(new SampledTiny(), ref _lineTiny);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateSmall(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(new SampledSmall(), ref _lineSmall);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateCells(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(new SampledCell[CellLength(i)], ref _lineCells);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateWide(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(new SampledWide(), ref _lineWide);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateWords(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(new SampledWord[WordLength], ref _lineWords);
    }

    /// <summary>The type no window may count: allocated before a window opens and after it ends.</summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateOutside(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(new SampledOutside(), ref _lineOutside);
        _sink = null;
    }

    /// <summary>`n` arrays on the large object heap.</summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateLarge(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(new SampledLargeCell[LargeLength], ref _lineLarge);
        _sink = null;
    }

    /// <summary>`n` arrays on the pinned object heap.</summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocatePinned(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(GC.AllocateArray<SampledPinnedCell>(PinnedLength, pinned: true), ref _linePinned);
        _sink = null;
    }

    /// <summary>A fixed allocation loop outside any window (the fast-path measurement): `n`
    /// SampledTiny objects.</summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateFastPath(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = new SampledTiny();
        _sink = null;
    }

    /// <summary>Records the caller's line; allocates nothing.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static object Site(object allocated, ref int line, [CallerLineNumber] int callerLine = 0)
    {
        line = callerLine;
        return allocated;
    }
}
