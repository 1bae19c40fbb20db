using System.Collections.Concurrent;
using System.Diagnostics;
using System.Reflection;
using System.Reflection.Metadata;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

public static class ExitTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)] public static int H0(int x) => x + 1;
    [MethodImpl(MethodImplOptions.NoInlining)] public static int H1(int x) => x + 2;
    [MethodImpl(MethodImplOptions.NoInlining)] public static int G0(int x) => x + 3;
    [MethodImpl(MethodImplOptions.NoInlining)] public static int G1(int x) => x + 4;

    public static int A(int x) => x + 100;

    // A deep stack that allocates: the last window's samples, each up to 64 frames.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Deep(int depth, int objects)
    {
        if (depth > 0)
        {
            Deep(depth - 1, objects);
            return;
        }
        for (int i = 0; i < objects; i++)
            ExitProof.Sink = new byte[64];
    }
}

/// <summary>
/// A process that ends (Main returns 3, or Environment.Exit(4)) with commands queued while four
/// background threads keep calling every exported function. Before it ends, a sampled capture
/// window with full sample storage (ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES, set by the proof)
/// is closed on another thread: the worker resolves its frames for a few hundred milliseconds,
/// the rest of the queue fills behind it, and the runtime's Shutdown finds the worker busy and
/// waits for it (up to the profiler's 2 s). Threads 0 and 1 call every export, the ones that
/// wait for the worker included; threads 2 and 3 skip those (describe, capture end, capture
/// describe function) until they see the worker stopped, so they keep calling while Shutdown
/// waits. The host prints its report first; after that, each thread writes one line to stderr,
/// with write(2), for each function and status it meets for the first time once a command was
/// refused with ALVK_E_WORKER_UNAVAILABLE:
///   [alvk-exit-proof] after-shutdown alvk_patch_install WorkerUnavailable
/// The proof checks the exit code, the time it took, that nothing crashed, and those lines.
/// </summary>
public static unsafe class ExitProof
{
    public const int ReturnCode = 3, ExitCode = 4;
    private const int Hammers = 4;
    private const string LinePrefix = "[alvk-exit-proof] after-shutdown ";

    private static readonly ConcurrentDictionary<string, long> Calls = new(StringComparer.Ordinal);
    private static int _shutdownSeen, _quietCaptures, _inCapture, _paused, _parked;

    internal static object? Sink;

    // The variants ending in "-sampled" run with sampled allocation profiling (set by the proof):
    // a window's sampling session may be open or stopping at exit.
    private static bool Sampled => Environment.GetEnvironmentVariable(AlvkCapture.ProfilingVariable) == "sampled";

    [DllImport("libc", EntryPoint = "write")]
    private static extern nint Write(int fd, byte* buffer, nint count);

    public static int Run(string variant)
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        var saturator = new QueueSaturator(patcher, heavy: null);
        ExitTargets.Deep(64, 10);
        var hammers = Enumerable.Range(0, Hammers).Select(t => new Hammer(patcher, t, blocking: t < 2)).ToList();
        var threads = hammers.Select(h => new Thread(h.Loop) { IsBackground = true, Name = $"exit-hammer-{h.Index}" }).ToList();
        threads.ForEach(t => t.Start());
        Thread.Sleep(400);

        // The report, built (and serialized once) before the worker gets busy: building it takes
        // long enough, on a first run, for the worker to finish what it is busy with.
        library.GetRuntimeStatus(out AlvkRuntimeStatus before);
        var report = new ExitReport(variant, Hammers, "", "", 0, "", before.QueueDepth, before.QueueCapacity,
            before.WorkerAlive, before.AllocationProfiling, new SortedDictionary<string, long>(Calls, StringComparer.Ordinal));
        _ = ReportJson.Write(report);

        // The hammers leave the capture functions alone until the worker stops; a window with
        // every sample slot taken, closed on another thread: the worker resolves it at exit.
        Volatile.Write(ref _quietCaptures, 1);
        var clock = Stopwatch.StartNew();
        while (Volatile.Read(ref _inCapture) != 0 && clock.Elapsed < TimeSpan.FromSeconds(10))
            Thread.Sleep(1);
        AlvkStatus begin = AlvkStatus.CaptureActive;
        while (begin == AlvkStatus.CaptureActive && clock.Elapsed < TimeSpan.FromSeconds(10))
        {
            begin = library.CaptureBegin(new AlvkCaptureOptions
            {
                Mode = AlvkCaptureMode.Sampled,
                SampleIntervalBytes = Sampled ? 0 : 64u, // sampled profiling: the runtime's interval only
            });
            if (begin == AlvkStatus.CaptureActive)
                Thread.Sleep(1);
        }
        int slots = int.TryParse(Environment.GetEnvironmentVariable(AlvkCapture.SampleSlotsVariable), out int n) ? n
            : (int)AlvkConstants.DefaultSampleSlots;
        ExitTargets.Deep(60, 2 * slots); // about 1.4 samples per 88-byte object at a 64-byte interval
        report = report with { CaptureBegin = begin.ToString() };

        // The end must reach an idle worker (a full queue would refuse it): the hammers park
        // while it is queued, and come back once the worker is resolving.
        Volatile.Write(ref _paused, 1);
        clock.Restart();
        while (Volatile.Read(ref _parked) < Hammers && clock.Elapsed < TimeSpan.FromSeconds(20))
            Thread.Sleep(1);
        saturator.Quiet();
        AlvkStatus end = AlvkStatus.Internal;
        var closer = new Thread(() =>
        {
            var watch = Stopwatch.StartNew();
            end = library.CaptureEnd(out _);
            byte[] line = Encoding.UTF8.GetBytes($"[alvk-exit-proof] capture-end {end} after {watch.ElapsedMilliseconds} ms\n");
            fixed (byte* p = line)
                Write(2, p, line.Length);
        })
        { IsBackground = true, Name = "exit-capture-end" };
        closer.Start();
        Thread.Sleep(20);
        Volatile.Write(ref _paused, 0);

        int fillers = 0;
        AlvkStatus fill;
        clock.Restart();
        while ((fill = saturator.Fill()) != AlvkStatus.QueueFull && clock.Elapsed < TimeSpan.FromSeconds(2))
            fillers += fill == AlvkStatus.Ok ? 1 : 0;
        library.GetRuntimeStatus(out AlvkRuntimeStatus status);
        report = report with
        {
            CaptureEndReturnedBeforeExit = closer.Join(0) ? end.ToString() : null,
            FillersAccepted = fillers,
            LastFill = fill.ToString(),
            QueueDepthAtExit = status.QueueDepth,
            WorkerAliveAtExit = status.WorkerAlive,
        };
        Console.WriteLine(ReportJson.Write(report));
        Console.Out.Flush();
        if (variant.StartsWith("environment", StringComparison.Ordinal))
            Environment.Exit(ExitCode);
        return ReturnCode;
    }

    private static void Note(string export, AlvkStatus status, HashSet<string> logged)
    {
        string key = $"{export} {status}";
        Calls.AddOrUpdate(key, 1, (_, n) => n + 1);
        if (status == AlvkStatus.WorkerUnavailable)
            Volatile.Write(ref _shutdownSeen, 1);
        if (Volatile.Read(ref _shutdownSeen) == 1 && logged.Add(key))
        {
            byte[] line = Encoding.UTF8.GetBytes(LinePrefix + key + "\n");
            fixed (byte* p = line)
                Write(2, p, line.Length);
        }
    }

    // One thread calling the exports in turn, forever.
    private sealed class Hammer
    {
        private readonly ProfilerLibrary _library;
        private readonly AlvkExports _exports;
        private readonly HashSet<string> _logged = new(StringComparer.Ordinal);
        private readonly AlvkInstallRequest _install;
        private readonly AlvkMethodDescription _generationTarget;
        private readonly GenerationBuilder _generation = new();
        private readonly ulong _owner;
        private readonly IntPtr _replacement;
        private readonly Guid _mvid;
        private readonly int _token;
        private readonly bool _blocking;

        public Hammer(Patcher patcher, int index, bool blocking)
        {
            Index = index;
            _blocking = blocking;
            _library = patcher.Library;
            _exports = AlvkExports.Bind(NativeLibrary.Load(_library.Path));
            _owner = 0xE000 + (ulong)index;
            MethodInfo target = Patcher.Method(typeof(ExitTargets), index % 2 == 0 ? nameof(ExitTargets.H0) : nameof(ExitTargets.H1));
            MethodInfo replacement = Patcher.Method(typeof(ExitTargets), nameof(ExitTargets.A));
            _replacement = Patcher.EntryPoint(replacement);
            _install = patcher.Request(target, replacement, _owner);
            _mvid = target.Module.ModuleVersionId;
            _token = target.MetadataToken;
            _generationTarget = patcher.Describe(Patcher.Method(typeof(ExitTargets), index % 2 == 0 ? nameof(ExitTargets.G0) : nameof(ExitTargets.G1)));
            _generation.IL.LoadArgument(0);
            _generation.IL.LoadConstantI4(7);
            _generation.IL.OpCode(ILOpCode.Add);
            _generation.IL.OpCode(ILOpCode.Ret);
        }

        public int Index { get; }

        private static bool Stopped => Volatile.Read(ref _shutdownSeen) == 1;

        public void Loop()
        {
            ulong handle = 0, generationHandle = 0, generation = 0, functionId = 0;
            var types = new AlvkTypeCount[8];
            var samples = new AlvkSample[1];
            while (true)
            {
                if (Volatile.Read(ref _paused) == 1)
                {
                    Interlocked.Increment(ref _parked);
                    while (Volatile.Read(ref _paused) == 1)
                        Thread.Sleep(1);
                    Interlocked.Decrement(ref _parked);
                }
                bool waits = _blocking || Stopped; // the functions that wait for the worker
                Note("alvk_version_number", ProfilerLibrary.MajorOf(_exports.VersionNumber()) == ProfilerLibrary.AbiMajor
                    ? AlvkStatus.Ok : AlvkStatus.Internal);
                Note("alvk_status_string", _library.StatusString(AlvkStatus.QueueFull).StartsWith("ALVK_E_QUEUE_FULL", StringComparison.Ordinal)
                    ? AlvkStatus.Ok : AlvkStatus.Internal);
                Note("alvk_get_runtime_status", _library.GetRuntimeStatus(out _));
                if (waits)
                    Note("alvk_describe_method", _library.DescribeMethod(_mvid, _token, out _));
                AlvkMvid mvid = AlvkMvid.From(_mvid);
                AlvkModuleInfo module = default;
                module.Size = (uint)sizeof(AlvkModuleInfo);
                Note("alvk_module_identify", _exports.ModuleIdentify(&mvid, unchecked((uint)_token), 0, &module));
                AlvkMethodDescription description = default;
                description.Size = (uint)sizeof(AlvkMethodDescription);
                Note("alvk_describe_module_method", _exports.DescribeModuleMethod(1, 1, unchecked((uint)_token), &description));

                AlvkStatus installed = _library.PatchInstall(_install, out ulong h);
                Note("alvk_patch_install", installed);
                if (installed == AlvkStatus.Ok)
                    handle = h;
                Note("alvk_patch_replace", _library.PatchReplace(handle, _owner, _replacement));
                Note("alvk_patch_wait", _library.PatchWait(handle, 5));
                ulong command = _library.LastCommand();
                Note("alvk_last_command", AlvkStatus.Ok);
                Note("alvk_command_wait", _library.CommandWait(command, 5, out _));
                Note("alvk_patch_get_telemetry", _library.PatchGetTelemetry(handle, out _));
                Note("alvk_patch_remove", _library.PatchRemove(handle, _owner));

                Note("alvk_generation_validate", _generation.Validate(_library, _generationTarget, 0, _owner, out _));
                ulong prior = _library.PatchGetTelemetry(generationHandle, out AlvkPatchTelemetry g) == AlvkStatus.Ok &&
                              g.State is AlvkPatchState.Active or AlvkPatchState.Pending ? g.LatestGeneration : 0;
                AlvkStatus submitted = _generation.Submit(_library, _generationTarget, prior, _owner, out ulong gh, out ulong id);
                Note("alvk_generation_submit", submitted);
                if (submitted == AlvkStatus.Ok)
                    (generationHandle, generation) = (gh, id);
                Note("alvk_generation_get_result", _library.GenerationGetResult(generationHandle, generation, out _, []));
                Note("alvk_patch_remove", _library.PatchRemove(generationHandle, _owner));

                if (waits && (Volatile.Read(ref _quietCaptures) == 0 || Stopped))
                {
                    Interlocked.Increment(ref _inCapture);
                    if (Volatile.Read(ref _quietCaptures) == 0 || Stopped)
                    {
                        Note("alvk_capture_begin", _library.CaptureBegin(new AlvkCaptureOptions
                        {
                            Mode = AlvkCaptureMode.Sampled,
                            SampleIntervalBytes = Sampled ? 0 : 4096u,
                        }));
                        for (int i = 0; i < 64; i++)
                            Sink = new byte[64];
                        Note("alvk_capture_end", _library.CaptureEnd(out _));
                    }
                    Interlocked.Decrement(ref _inCapture);
                }
                Note("alvk_capture_read_types", _library.CaptureReadTypes(0, types, out _));
                AlvkStatus read = _library.CaptureReadSamples(0, samples, out uint written);
                Note("alvk_capture_read_samples", read);
                if (read == AlvkStatus.Ok && written > 0 && samples[0].FrameCount > 0)
                    functionId = samples[0].Frames[0].FunctionId;
                if (waits)
                    Note("alvk_capture_describe_function", _library.CaptureDescribeFunction(functionId, out _));
                // A breath per round: four spinning threads on two cores would starve the
                // finalizer thread, which the runtime's shutdown waits for.
                Thread.Sleep(1);
            }
        }

        private void Note(string export, AlvkStatus status) => ExitProof.Note(export, status, _logged);
    }
}
