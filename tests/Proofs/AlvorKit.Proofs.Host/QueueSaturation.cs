using System.Diagnostics;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// An assembly written and loaded at run time whose one method, Heavy.Big.Run, has an IL body
/// of about 1 MB (AIP_BODY_MAX_BYTES is 1 MiB): alvk_describe_method hashes the whole body on
/// the worker, which keeps the worker on that one command for milliseconds (about 15 ms here),
/// a thousand times longer than filling the queue behind it takes. It is what the proofs use to
/// hold the worker busy: the ABI has no command that blocks, and anything that blocks the
/// runtime (a thread that never reaches a safe point) stops the proof's own threads too. The
/// process's allowlist must name AssemblyName.
/// </summary>
internal static class HeavyModule
{
    public const string AssemblyName = "AlvorKit.Proofs.Heavy";
    public const int CodeBytes = 1_000_000;

    /// <summary>Writes the assembly to a temporary folder, loads it, and returns Heavy.Big.Run
    /// (never called: describing it is the point).</summary>
    public static MethodInfo Load()
    {
        string directory = Path.Combine(Path.GetTempPath(), $"alvk-heavy-{Environment.ProcessId}");
        Directory.CreateDirectory(directory);
        string path = Path.Combine(directory, AssemblyName + ".dll");
        File.WriteAllBytes(path, Build(CodeBytes));
        Assembly assembly = AssemblyLoadContext.Default.LoadFromAssemblyPath(path);
        MethodInfo run = assembly.GetType("Heavy.Big")!.GetMethod("Run")!;
        Directory.Delete(directory, recursive: true); // mapped: the runtime keeps its copy
        return run;
    }

    // One public static class Heavy.Big with `static int Run()`: CodeBytes nops, ldc.i4.0, ret.
    private static byte[] Build(int codeBytes)
    {
        var md = new MetadataBuilder();
        md.AddAssembly(md.GetOrAddString(AssemblyName), new Version(1, 0, 0, 0), default, default, 0,
            AssemblyHashAlgorithm.Sha1);
        md.AddModule(0, md.GetOrAddString(AssemblyName + ".dll"), md.GetOrAddGuid(Guid.NewGuid()), default, default);
        AssemblyReferenceHandle runtime = md.AddAssemblyReference(md.GetOrAddString("System.Runtime"),
            new Version(10, 0, 0, 0), default, md.GetOrAddBlob(new byte[] { 0xB0, 0x3F, 0x5F, 0x7F, 0x11, 0xD5, 0x0A, 0x3A }),
            0, default);
        TypeReferenceHandle obj = md.AddTypeReference(runtime, md.GetOrAddString("System"), md.GetOrAddString("Object"));
        var signature = new BlobBuilder();
        new BlobEncoder(signature).MethodSignature().Parameters(0, r => r.Type().Int32(), _ => { });
        var code = new BlobBuilder();
        code.WriteBytes(0x00, codeBytes); // nop
        var il = new InstructionEncoder(code);
        il.LoadConstantI4(0);
        il.OpCode(ILOpCode.Ret);
        var bodies = new MethodBodyStreamEncoder(new BlobBuilder());
        int offset = bodies.AddMethodBody(il, maxStack: 8);
        md.AddTypeDefinition(default, default, md.GetOrAddString("<Module>"), default,
            MetadataTokens.FieldDefinitionHandle(1), MetadataTokens.MethodDefinitionHandle(1));
        MethodDefinitionHandle run = md.AddMethodDefinition(
            MethodAttributes.Public | MethodAttributes.Static | MethodAttributes.HideBySig, MethodImplAttributes.IL,
            md.GetOrAddString("Run"), md.GetOrAddBlob(signature), offset, default);
        md.AddTypeDefinition(TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed,
            md.GetOrAddString("Heavy"), md.GetOrAddString("Big"), obj, MetadataTokens.FieldDefinitionHandle(1), run);
        var pe = new ManagedPEBuilder(PEHeaderBuilder.CreateLibraryHeader(), new MetadataRootBuilder(md), bodies.Builder);
        var image = new BlobBuilder();
        pe.Serialize(image);
        return image.ToArray();
    }
}

public static class SaturationTargets
{
    // The filler patch's target: never called, so each filler replace only costs its ReJIT request.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Filler(int x) => x + 1;

    public static int FillerA(int x) => x + 10;

    public static int FillerB(int x) => x + 20;
}

/// <summary>
/// Fills the worker's queue and proves it stayed full while probes ran. One round:
///   1. quiet: the filler patch has nothing pending and commands_completed has settled (c0);
///   2. a thread calls alvk_describe_method on HeavyModule's method (the blocker: one slot,
///      running for milliseconds);
///   3. fire-and-forget replaces on a filler patch until one is refused with QUEUE_FULL: every
///      slot is in use from then on, unless a command completes;
///   4. the probes run;
///   5. commands_completed is read again (c1).
/// A round is valid when c1 == c0: nothing completed between the blocker's submission and the
/// last probe, so no slot was freed (slots are freed only when a command completes or when a
/// waiter collects one that completed; the blocker's waiter is the only one), and every probe
/// met a full queue. An invalid round (a thread descheduled for longer than the blocker ran) is
/// retried by the caller after undoing whatever a probe did.
/// </summary>
internal sealed class QueueSaturator
{
    private const ulong FillerOwner = 0xF111;

    private readonly ProfilerLibrary _library;
    private readonly MethodInfo? _heavy;
    private readonly IntPtr _fillerA, _fillerB;
    private long _fills;

    /// <summary>`heavy` (HeavyModule's method) is the blocker of Round; without it only Fill works.</summary>
    public QueueSaturator(Patcher patcher, MethodInfo? heavy)
    {
        _library = patcher.Library;
        _heavy = heavy;
        AlvkStatus warm = heavy is null ? AlvkStatus.Ok
            : _library.DescribeMethod(heavy.Module.ModuleVersionId, heavy.MetadataToken, out _);
        if (warm != AlvkStatus.Ok)
            throw new InvalidOperationException($"describing {HeavyModule.AssemblyName} returned {warm}: is it in the allowlist?");
        _fillerA = Patcher.EntryPoint(Patcher.Method(typeof(SaturationTargets), nameof(SaturationTargets.FillerA)));
        _fillerB = Patcher.EntryPoint(Patcher.Method(typeof(SaturationTargets), nameof(SaturationTargets.FillerB)));
        AlvkInstallRequest request = patcher.Request(Patcher.Method(typeof(SaturationTargets), nameof(SaturationTargets.Filler)),
            Patcher.Method(typeof(SaturationTargets), nameof(SaturationTargets.FillerA)), FillerOwner);
        AlvkStatus status = _library.PatchInstall(request, out ulong handle);
        if (status != AlvkStatus.Ok || _library.PatchWait(handle, Patcher.WaitMs) != AlvkStatus.Ok)
            throw new InvalidOperationException($"the filler patch could not be installed: {status}");
        FillerHandle = handle;
        _library.GetRuntimeStatus(out AlvkRuntimeStatus runtime);
        Capacity = runtime.QueueCapacity;
    }

    public ulong FillerHandle { get; }

    public uint Capacity { get; }

    /// <summary>The filler patch's newest generation: the last ID a filler replace took.</summary>
    public ulong FillerLatestGeneration
    {
        get
        {
            _library.PatchGetTelemetry(FillerHandle, out AlvkPatchTelemetry t);
            return t.LatestGeneration;
        }
    }

    /// <summary>One fire-and-forget command for the queue (a replace on the filler patch).</summary>
    public AlvkStatus Fill() =>
        _library.PatchReplace(FillerHandle, FillerOwner, Interlocked.Increment(ref _fills) % 2 == 0 ? _fillerA : _fillerB);

    /// <summary>Waits until the filler patch has nothing pending and commands_completed stops
    /// moving (alvk_patch_wait returns before the queue counts the command).</summary>
    public ulong Quiet()
    {
        _library.PatchWait(FillerHandle, Patcher.WaitMs);
        ulong last = Completed(out uint depth);
        var clock = Stopwatch.StartNew();
        int stable = 0;
        while (stable < 5 && clock.Elapsed < TimeSpan.FromSeconds(10))
        {
            Thread.Sleep(1);
            ulong now = Completed(out depth);
            stable = now == last && depth == 0 ? stable + 1 : 0;
            last = now;
        }
        return last;
    }

    public ulong Completed(out uint depth)
    {
        _library.GetRuntimeStatus(out AlvkRuntimeStatus s);
        depth = s.QueueDepth;
        return s.CommandsCompleted;
    }

    /// <summary>Starts a thread that describes the heavy method (the worker is busy with it for
    /// milliseconds) and returns once its describe has had a head start on the queue.</summary>
    public Thread StartBlocker()
    {
        MethodInfo heavy = _heavy ?? throw new InvalidOperationException("the blocker needs the heavy method");
        bool started = false;
        var blocker = new Thread(() =>
        {
            Volatile.Write(ref started, true);
            _library.DescribeMethod(heavy.Module.ModuleVersionId, heavy.MetadataToken, out _);
        })
        { Name = "queue-blocker", IsBackground = true };
        blocker.Start();
        while (!Volatile.Read(ref started))
            Thread.SpinWait(20);
        var headStart = Stopwatch.StartNew();
        while (headStart.Elapsed < TimeSpan.FromMicroseconds(300))
            Thread.SpinWait(20);
        return blocker;
    }

    /// <summary>Runs one round around `probes`; the record says whether it was valid.</summary>
    public SaturationRound Round(Action probes)
    {
        MethodInfo heavy = _heavy ?? throw new InvalidOperationException("a round needs the heavy method");
        ulong c0 = Quiet();
        bool started = false;
        AlvkStatus blockerStatus = AlvkStatus.Internal;
        double blockerMs = 0;
        var blocker = new Thread(() =>
        {
            var watch = Stopwatch.StartNew();
            Volatile.Write(ref started, true);
            blockerStatus = _library.DescribeMethod(heavy.Module.ModuleVersionId, heavy.MetadataToken, out _);
            blockerMs = watch.Elapsed.TotalMilliseconds;
        })
        { Name = "queue-blocker", IsBackground = true };
        var clock = Stopwatch.StartNew();
        blocker.Start();
        while (!Volatile.Read(ref started))
            Thread.SpinWait(20);
        // Give the blocker's submission a head start, then prove it is running: a filler that
        // stays queued (depth >= 1) for longer than a filler takes to run, with nothing completed.
        var headStart = Stopwatch.StartNew();
        while (headStart.Elapsed < TimeSpan.FromMicroseconds(300))
            Thread.SpinWait(20);
        int accepted = 0;
        AlvkStatus first = Fill();
        accepted += first == AlvkStatus.Ok ? 1 : 0;
        var held = Stopwatch.StartNew();
        bool busy = false;
        while (held.Elapsed < TimeSpan.FromMilliseconds(3))
        {
            ulong c = Completed(out uint depth);
            if (c != c0 || depth == 0)
                break;
            if (held.Elapsed > TimeSpan.FromMicroseconds(300))
            {
                busy = true;
                break;
            }
        }
        AlvkStatus refused = AlvkStatus.Ok;
        double fullAtMs = 0, probesDoneMs = 0;
        ulong c1 = c0;
        if (busy)
        {
            while ((refused = Fill()) == AlvkStatus.Ok)
                accepted++;
            fullAtMs = clock.Elapsed.TotalMilliseconds;
            probes();
            probesDoneMs = clock.Elapsed.TotalMilliseconds;
            c1 = Completed(out _);
        }
        blocker.Join();
        bool valid = busy && c1 == c0 && refused == AlvkStatus.QueueFull && blockerStatus == AlvkStatus.Ok &&
                     accepted == Capacity - 1;
        return new SaturationRound(valid, busy, accepted, refused.ToString(), c0, c1, fullAtMs, probesDoneMs,
            blockerStatus.ToString(), blockerMs);
    }
}
