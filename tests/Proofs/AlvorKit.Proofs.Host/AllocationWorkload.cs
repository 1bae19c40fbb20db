using System.Runtime.CompilerServices;

// The workload's allocated types are fields only, so their sizes are what the allocation proofs
// expect (GetObjectSize2 of each type).
#pragma warning disable CA1051

namespace AlvorKit.Proofs.Host;

/// <summary>A class only the allocation workload allocates.</summary>
public sealed class AllocA
{
    public int Value;
}

/// <summary>The element type of the workload's List instantiation.</summary>
public sealed class AllocB
{
    public int Value;
}

/// <summary>A struct the workload boxes.</summary>
public struct AllocS
{
    public long A;
    public long B;
}

/// <summary>
/// Allocations of known counts and types, each in its own never-inlined, fully optimized
/// method (no tier-up or OSR can happen during a capture window), one allocation statement
/// per method. Each statement passes its own line to Site (CallerLineNumber), so the proof
/// knows the source line the PDB must give for it.
/// </summary>
public static class AllocationWorkload
{
    public const string AllocAType = "AlvorKit.Proofs.Host.AllocA";
    public const string IntArrayType = "System.Int32[]";
    public const string StringType = "System.String";
    public const string BoxedType = "AlvorKit.Proofs.Host.AllocS";
    public const string ListType = "System.Collections.Generic.List<AlvorKit.Proofs.Host.AllocB>";

    /// <summary>The window's counts: 1000 AllocA, 500 int[16], 300 strings of 20 chars,
    /// 200 boxed AllocS, 100 List&lt;AllocB&gt;.</summary>
    public static readonly (string Type, int Count, string Method)[] Expected =
    [
        (AllocAType, 1000, nameof(AllocateA)),
        (IntArrayType, 500, nameof(AllocateIntArrays)),
        (StringType, 300, nameof(AllocateStrings)),
        (BoxedType, 200, nameof(AllocateBoxes)),
        (ListType, 100, nameof(AllocateLists)),
    ];

    /// <summary>The source line of each method's allocation statement, by method name.</summary>
    public static readonly Dictionary<string, int> Lines = [];

    private static object? _sink;
    private static int _lineA, _lineInts, _lineStrings, _lineBoxes, _lineLists;

    /// <summary>Allocates `scale` times each expected count (scale 1: exactly Expected).</summary>
    public static void Run(int scale = 1)
    {
        AllocateA(1000 * scale);
        AllocateIntArrays(500 * scale);
        AllocateStrings(300 * scale);
        AllocateBoxes(200 * scale);
        AllocateLists(100 * scale);
    }

    /// <summary>Allocates a few of each type: `n` AllocA, and smaller counts of the others.</summary>
    public static void Some(int n)
    {
        AllocateA(n);
        AllocateIntArrays(n / 2 + 1);
        AllocateStrings(n / 3 + 1);
        AllocateBoxes(n / 4 + 1);
        AllocateLists(n / 5 + 1);
        Lines[nameof(AllocateA)] = _lineA;
        Lines[nameof(AllocateIntArrays)] = _lineInts;
        Lines[nameof(AllocateStrings)] = _lineStrings;
        Lines[nameof(AllocateBoxes)] = _lineBoxes;
        Lines[nameof(AllocateLists)] = _lineLists;
    }

    /// <summary>How many of each workload type `Some(n)` allocates.</summary>
    public static Dictionary<string, int> SomeCounts(int n) => new()
    {
        [AllocAType] = n,
        [IntArrayType] = n / 2 + 1,
        [StringType] = n / 3 + 1,
        [BoxedType] = n / 4 + 1,
        [ListType] = n / 5 + 1,
    };

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateA(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(new AllocA(), ref _lineA);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateIntArrays(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(new int[16], ref _lineInts);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateStrings(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(new string('x', 20), ref _lineStrings);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateBoxes(int n)
    {
        var value = new AllocS { A = n, B = 1 };
        for (int i = 0; i < n; i++)
            _sink = Site(value, ref _lineBoxes); // boxes: Site takes an object
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void AllocateLists(int n)
    {
        for (int i = 0; i < n; i++)
            _sink = Site(new List<AllocB>(), ref _lineLists);
    }

    /// <summary>Records the caller's line; allocates nothing.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static object Site(object allocated, ref int line, [CallerLineNumber] int callerLine = 0)
    {
        line = callerLine;
        return allocated;
    }
}
