using System.Collections.Concurrent;
using System.Diagnostics;
using System.Reflection.Metadata;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

public static class MixedStressProbe
{
    // Takes one generation before and one after the run: the IDs between are what it consumed.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int IdProbe(int x) => x - 1;
}

/// <summary>
/// Mixed commands from many threads on many targets while two threads call the targets:
///   mixedstress [threads] [commands per thread] [targets]   (default 8 10000 50)
/// Each command thread draws from installs (one in ten with a wrong signature hash, refused by
/// the worker), replaces, bursts of replaces without waiting, removes, generation submits (one
/// in ten built against another body, refused by the worker), telemetry and result reads,
/// describes (a few of HeavyModule's 1 MB body, which hold the worker) and capture windows,
/// under two owners of its own, on targets every thread shares; it waits for about half of its
/// accepted commands, and sleeps a millisecond after a QUEUE_FULL (a burst stops at its first). Counted per kind: calls, accepted, refused
/// by status, wait statuses. Then every holding is removed and the report compares:
///   - commands_completed (its rise over the run) with the commands the worker accepted:
///     patch commands and submits (ALVK_OK at the call), describes (any status but QUEUE_FULL),
///     capture ends that reached the worker (OK or TIMEOUT);
///   - each handle's commands_completed with the commands accepted on it (handles not recycled);
///   - the generation IDs the run consumed with the installs, replaces and submits accepted;
///   - every generation submit that was waited for: the wait's status with the generation's own;
///   - capture windows opened with windows closed by an accepted end;
///   - the callers' values (original or a replacement, nothing else) and the final originals.
/// </summary>
public static class MixedStressProof
{
    private const int Input = 7;
    private const ulong OwnerBase = 0x7100, ProbeOwner = 0x7FFF;

    private enum Op { Install, Replace, Burst, Remove, Submit, Read, Describe, DescribeHeavy, Capture }

    // Per 200 draws. A burst is 10 to 69 replaces without waiting; a heavy describe holds the
    // worker for milliseconds (HeavyModule): both make the queue fill, so every kind meets
    // QUEUE_FULL too.
    private static readonly (Op Op, int Weight)[] Mix =
    [
        (Op.Install, 40), (Op.Replace, 28), (Op.Burst, 4), (Op.Remove, 32), (Op.Submit, 32),
        (Op.Read, 27), (Op.Describe, 16), (Op.DescribeHeavy, 1), (Op.Capture, 20),
    ];

    public static MixedStressReport Run(int threads, int commandsPerThread, int targets)
    {
        if (targets is < 1 or > MixedStressTargets.Count)
            throw new ArgumentOutOfRangeException(nameof(targets), targets, $"1..{MixedStressTargets.Count}");
        var patcher = new Patcher();
        var run = new Shared(patcher, targets);
        ProfilerLibrary library = patcher.Library;

        // Callers: every target, without pause, from two threads.
        bool stop = false;
        var callerStats = new long[2, 6];
        var violations = new ConcurrentQueue<string>();
        var callers = Enumerable.Range(0, 2).Select(c => new Thread(() =>
        {
            while (!Volatile.Read(ref stop))
            {
                for (int i = 0; i < targets; i++)
                {
                    int v;
                    try
                    {
                        v = MixedStressTargets.Calls[i](Input);
                    }
                    catch (Exception e)
                    {
                        callerStats[c, 5]++;
                        if (violations.Count < 20)
                            violations.Enqueue($"T{i:D2} threw {e.GetType().Name}");
                        continue;
                    }
                    callerStats[c, 0]++;
                    int kind = v == Input + i ? 1 : v == Input + MixedStressTargets.ReplacementA ? 2
                        : v == Input + MixedStressTargets.ReplacementB ? 3 : v == Input + MixedStressTargets.Generation ? 4 : 5;
                    callerStats[c, kind]++;
                    if (kind == 5 && violations.Count < 20)
                        violations.Enqueue($"T{i:D2} returned {v}");
                }
            }
        })
        { IsBackground = true, Name = $"stress-caller-{c}" }).ToList();
        callers.ForEach(t => t.Start());

        // The generation ID before the run, and the queue's count once it is quiet.
        ulong idBefore = run.ProbeGeneration();
        ulong completedBefore = run.Quiet();

        var clock = Stopwatch.StartNew();
        var workers = Enumerable.Range(0, threads).Select(t => new Thread(() => new Worker(run, t, commandsPerThread).Loop())
        {
            Name = $"stress-commands-{t}",
        }).ToList();
        workers.ForEach(w => w.Start());
        workers.ForEach(w => w.Join());
        double commandsMs = clock.Elapsed.TotalMilliseconds;

        // Cleanup: every owner leaves every patch it may hold.
        var cleanup = run.Cleanup();
        double cleanupMs = clock.Elapsed.TotalMilliseconds - commandsMs;
        ulong completedAfter = run.Quiet();
        ulong idAfter = run.ProbeGeneration();

        var finals = new SortedDictionary<string, Polled<int>>(StringComparer.Ordinal);
        bool allOriginal = true;
        for (int i = 0; i < targets; i++)
        {
            int index = i;
            Polled<int> poll = Patcher.PollFor(() => MixedStressTargets.Calls[index](Input), Input + index);
            allOriginal &= poll.Ok;
            if (!poll.Ok)
                finals[$"T{i:D2}"] = poll;
        }
        Volatile.Write(ref stop, true);
        callers.ForEach(t => t.Join());

        // Per handle: its telemetry's commands_completed against the commands accepted on it.
        int handlesChecked = 0, handlesRecycled = 0, handlesPending = 0;
        var handleMismatches = new List<string>();
        foreach ((ulong handle, int accepted) in run.AcceptedPerHandle)
        {
            if (library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t) != AlvkStatus.Ok)
            {
                handlesRecycled++;
                continue;
            }
            handlesChecked++;
            handlesPending += t.PendingCommands != 0 ? 1 : 0;
            if (t.CommandsCompleted != accepted && handleMismatches.Count < 20)
                handleMismatches.Add($"{handle:X}: accepted {accepted}, completed {t.CommandsCompleted}, state {t.State}");
        }

        SortedDictionary<string, IReadOnlyDictionary<string, long>> kinds = run.Kinds();
        long workerAccepted = run.WorkerAccepted();
        long idBearing = run.AcceptedOf("install") + run.AcceptedOf("replace") + run.AcceptedOf("generationSubmit");
        library.GetRuntimeStatus(out AlvkRuntimeStatus rs);
        return new MixedStressReport(threads, commandsPerThread, targets, Math.Round(commandsMs), Math.Round(cleanupMs),
            kinds, cleanup, workerAccepted, completedBefore, completedAfter, completedAfter - completedBefore,
            new GenerationIdCounts(idBefore, idAfter, idAfter - idBefore - 1, idBearing, run.RefusedAfterIdTaken(),
                run.DuplicateIds),
            run.WaitChecks(), run.Captures(),
            new HandleChecks(run.AcceptedPerHandle.Count, handlesChecked, handlesRecycled, handlesPending, handleMismatches),
            new CallerCounts(
                callerStats[0, 0] + callerStats[1, 0],
                callerStats[0, 1] + callerStats[1, 1],
                callerStats[0, 2] + callerStats[1, 2],
                callerStats[0, 3] + callerStats[1, 3],
                callerStats[0, 4] + callerStats[1, 4],
                callerStats[0, 5] + callerStats[1, 5],
                [.. violations]),
            allOriginal, finals, rs.QueueDepth, rs.QueueCapacity);
    }

    /// <summary>What the threads share: the library, requests, counters and holdings.</summary>
    private sealed class Shared
    {
        public readonly ProfilerLibrary Library;
        public readonly int Targets;
        public readonly AlvkMethodDescription[] Descriptions;
        public readonly IntPtr EntryA, EntryB;
        public readonly byte[] GenerationBody;
        public readonly System.Reflection.MethodInfo Heavy = HeavyModule.Load();
        public readonly ulong[] LatestHandle;
        public readonly ConcurrentDictionary<ulong, int> AcceptedPerHandle = new();
        public readonly ConcurrentDictionary<(ulong Handle, ulong Owner), byte> EverHeld = new();
        public readonly ConcurrentDictionary<ulong, byte> ReturnedIds = new();
        public int DuplicateIds;
        private readonly ConcurrentDictionary<string, long> _counts = new(StringComparer.Ordinal);
        private readonly Patcher _patcher;
        private readonly AlvkMethodDescription _probe;
        private ulong _probeHandle, _probeLatest;
        private long _waitedSubmits, _waitMatched, _waitMismatched, _waitUnverifiable;
        private readonly ConcurrentQueue<string> _mismatchSamples = new();
        private long _beginsOk, _endsAccepted, _endsQueueFull, _endsNotActiveAfterQueueFull, _endsOther;

        public Shared(Patcher patcher, int targets)
        {
            _patcher = patcher;
            Library = patcher.Library;
            Targets = targets;
            Descriptions = Enumerable.Range(0, targets).Select(i => patcher.Describe(MixedStressTargets.Method(i))).ToArray();
            EntryA = Patcher.EntryPoint(Patcher.Method(typeof(MixedStressTargets), nameof(MixedStressTargets.A)));
            EntryB = Patcher.EntryPoint(Patcher.Method(typeof(MixedStressTargets), nameof(MixedStressTargets.B)));
            var b = new GenerationBuilder();
            b.IL.LoadArgument(0);
            b.IL.LoadConstantI4(MixedStressTargets.Generation);
            b.IL.OpCode(ILOpCode.Add);
            b.IL.OpCode(ILOpCode.Ret);
            GenerationBody = b.Body();
            LatestHandle = new ulong[targets];
            _probe = patcher.Describe(Patcher.Method(typeof(MixedStressProbe), nameof(MixedStressProbe.IdProbe)));
            for (int i = 0; i < targets; i++)
                MixedStressTargets.Calls[i](Input);
        }

        public void Count(string kind, string what) => _counts.AddOrUpdate($"{kind}|{what}", 1, (_, n) => n + 1);

        public long AcceptedOf(string kind) => _counts.GetValueOrDefault($"{kind}|accepted");

        // The kinds that reach the worker, and those of them that take a generation ID.
        private static readonly string[] WorkerKinds =
            ["install", "replace", "remove", "generationSubmit", "describe", "captureEnd", "cleanupRemove"];
        private static readonly string[] IdKinds = ["install", "replace", "generationSubmit"];

        // The worker commands the run put in the queue.
        public long WorkerAccepted() => WorkerKinds.Sum(AcceptedOf);

        // Refusals at the call that came after the command had taken a generation ID.
        public long RefusedAfterIdTaken() => IdKinds.Sum(k => _counts.GetValueOrDefault($"{k}|refused.QueueFull"));

        public SortedDictionary<string, IReadOnlyDictionary<string, long>> Kinds()
        {
            var kinds = new SortedDictionary<string, IReadOnlyDictionary<string, long>>(StringComparer.Ordinal);
            foreach (var group in _counts.GroupBy(kv => kv.Key.Split('|')[0]))
            {
                var kind = new SortedDictionary<string, long>(StringComparer.Ordinal);
                foreach (var kv in group)
                    kind[kv.Key.Split('|')[1]] = kv.Value;
                kinds[group.Key] = kind;
            }
            return kinds;
        }

        public void NoteAccepted(ulong handle) => AcceptedPerHandle.AddOrUpdate(handle, 1, (_, n) => n + 1);

        // A generation submit that was waited for: its own record against the wait's answer.
        public void CheckWait(ulong handle, ulong id, AlvkStatus wait)
        {
            Interlocked.Increment(ref _waitedSubmits);
            if (Library.GenerationGetResult(handle, id, out AlvkGenerationResult r, []) != AlvkStatus.Ok ||
                r.State is AlvkGenerationState.Pending)
            {
                Interlocked.Increment(ref _waitUnverifiable);
                return;
            }
            // A generation that was requested (or compiled, or later superseded) succeeded.
            AlvkStatus own = r.State is AlvkGenerationState.Rejected or AlvkGenerationState.Failed ? r.Status : AlvkStatus.Ok;
            if (own == wait)
            {
                Interlocked.Increment(ref _waitMatched);
                return;
            }
            Interlocked.Increment(ref _waitMismatched);
            if (_mismatchSamples.Count < 10)
                _mismatchSamples.Enqueue($"generation {id}: {r.State}/{r.Status}, wait said {wait}");
        }

        public WaitChecks WaitChecks() =>
            new(_waitedSubmits, _waitMatched, _waitMismatched, _waitUnverifiable, [.. _mismatchSamples]);

        public void CaptureOutcome(bool begun, AlvkStatus end, bool afterQueueFull)
        {
            if (begun)
                Interlocked.Increment(ref _beginsOk);
            if (end is AlvkStatus.Ok or AlvkStatus.Timeout)
                Interlocked.Increment(ref _endsAccepted);
            else if (end == AlvkStatus.QueueFull)
                Interlocked.Increment(ref _endsQueueFull);
            else if (end == AlvkStatus.CaptureNotActive && afterQueueFull)
                Interlocked.Increment(ref _endsNotActiveAfterQueueFull);
            else if (end != AlvkStatus.Internal)
                Interlocked.Increment(ref _endsOther);
        }

        public CaptureCounts Captures() =>
            new(_beginsOk, _endsAccepted, _endsQueueFull, _endsNotActiveAfterQueueFull, _endsOther);

        // One generation on the probe target by its own owner; returns its ID.
        public ulong ProbeGeneration()
        {
            for (int attempt = 0; attempt < 1000; attempt++)
            {
                var g = AlvkGeneration.For(_probe, _probeLatest, ProbeOwner);
                AlvkStatus s = SubmitBody(g, GenerationBody, out ulong h, out ulong id);
                if (s == AlvkStatus.Ok)
                {
                    Library.PatchWait(h, Patcher.WaitMs);
                    _probeHandle = h;
                    _probeLatest = id;
                    return id;
                }
                Thread.Sleep(1);
            }
            throw new InvalidOperationException("the ID probe generation was never accepted");
        }

        public unsafe AlvkStatus SubmitBody(AlvkGeneration g, byte[] body, out ulong handle, out ulong id)
        {
            fixed (byte* p = body)
            {
                g.Body = p;
                g.BodySize = (uint)body.Length;
                return Library.GenerationSubmit(g, out handle, out id);
            }
        }

        /// <summary>Waits until nothing is queued or running and commands_completed has settled.</summary>
        public ulong Quiet()
        {
            ulong last = 0;
            int stable = 0;
            var clock = Stopwatch.StartNew();
            while (stable < 20 && clock.Elapsed < TimeSpan.FromSeconds(60))
            {
                Library.GetRuntimeStatus(out AlvkRuntimeStatus s);
                stable = s.CommandsCompleted == last && s.QueueDepth == 0 ? stable + 1 : 0;
                last = s.CommandsCompleted;
                Thread.Sleep(5);
            }
            return last;
        }

        // Every (handle, owner) ever accepted leaves; QUEUE_FULL is retried.
        public SortedDictionary<string, int> Cleanup()
        {
            var statuses = new SortedDictionary<string, int>(StringComparer.Ordinal);
            foreach ((ulong handle, ulong owner) in EverHeld.Keys.OrderBy(k => k.Handle).ThenBy(k => k.Owner))
            {
                AlvkStatus s;
                while ((s = Library.PatchRemove(handle, owner)) == AlvkStatus.QueueFull)
                    Thread.Sleep(1);
                statuses[s.ToString()] = statuses.GetValueOrDefault(s.ToString()) + 1;
                if (s == AlvkStatus.Ok)
                {
                    Count("cleanupRemove", "accepted");
                    NoteAccepted(handle);
                    Library.PatchWait(handle, Patcher.WaitMs);
                }
            }
            foreach (ulong handle in AcceptedPerHandle.Keys)
                Library.PatchWait(handle, Patcher.WaitMs);
            return statuses;
        }
    }

    /// <summary>One command thread.</summary>
    private sealed class Worker(Shared run, int index, int commands)
    {
        private readonly Random _random = new(0x5EED + index);
        private readonly List<(ulong Handle, ulong Owner)> _holdings = [];
        private readonly ulong[] _owners = [OwnerBase + 2 * (ulong)index, OwnerBase + 2 * (ulong)index + 1];
        private int _issued;
        private static object? _sink;

        public void Loop()
        {
            int total = Mix.Sum(m => m.Weight);
            while (_issued < commands)
            {
                int pick = _random.Next(total);
                Op op = Mix.First(m => (pick -= m.Weight) < 0).Op;
                switch (op)
                {
                    case Op.Install: Install(); break;
                    case Op.Replace: Replace(1); break;
                    case Op.Burst: Replace(_random.Next(10, 70)); break;
                    case Op.Remove: Remove(); break;
                    case Op.Submit: Submit(); break;
                    case Op.Read: Read(); break;
                    case Op.Describe: Describe(false); break;
                    case Op.DescribeHeavy: Describe(true); break;
                    case Op.Capture: Capture(); break;
                }
            }
        }

        private ulong Owner => _owners[_random.Next(_owners.Length)];

        private bool Refused(string kind, AlvkStatus status)
        {
            _issued++;
            run.Count(kind, "calls");
            if (status == AlvkStatus.Ok)
            {
                run.Count(kind, "accepted");
                return false;
            }
            run.Count(kind, $"refused.{status}");
            BackOff(status);
            return true;
        }

        // What a client does with QUEUE_FULL: give the worker a moment.
        private static void BackOff(AlvkStatus status)
        {
            if (status == AlvkStatus.QueueFull)
                Thread.Sleep(1);
        }

        private void MaybeWait(string kind, ulong handle)
        {
            if (_random.Next(2) == 0)
                run.Count(kind, $"wait.{run.Library.PatchWait(handle, Patcher.WaitMs)}");
        }

        private void Install()
        {
            int target = _random.Next(run.Targets);
            ulong owner = Owner;
            bool bad = _random.Next(10) == 0;
            AlvkInstallRequest request = AlvkInstallRequest.For(run.Descriptions[target], _random.Next(2) == 0 ? run.EntryA : run.EntryB, owner);
            if (bad)
                unsafe { request.SignatureHash[0] ^= 0xFF; }
            AlvkStatus status = run.Library.PatchInstall(request, out ulong handle);
            if (Refused("install", status))
                return;
            run.Count("install", bad ? "acceptedBadHash" : "acceptedValid");
            run.NoteAccepted(handle);
            Volatile.Write(ref run.LatestHandle[target], handle);
            if (!bad)
            {
                run.EverHeld.TryAdd((handle, owner), 0);
                if (!_holdings.Contains((handle, owner)))
                    _holdings.Add((handle, owner));
            }
            MaybeWait("install", handle);
        }

        private void Replace(int times)
        {
            if (_holdings.Count == 0)
            {
                Install();
                return;
            }
            (ulong handle, ulong owner) = _holdings[_random.Next(_holdings.Count)];
            for (int i = 0; i < times && _issued < commands; i++)
            {
                AlvkStatus status = run.Library.PatchReplace(handle, owner, _random.Next(2) == 0 ? run.EntryA : run.EntryB);
                if (Refused("replace", status))
                {
                    if (status is AlvkStatus.UnknownPatch or AlvkStatus.PatchEnded or AlvkStatus.NotOwner)
                        _holdings.Remove((handle, owner));
                    break; // a burst ends at its first refusal
                }
                run.NoteAccepted(handle);
                if (times == 1)
                    MaybeWait("replace", handle);
            }
        }

        private void Remove()
        {
            if (_holdings.Count == 0)
            {
                Install();
                return;
            }
            (ulong handle, ulong owner) = _holdings[_random.Next(_holdings.Count)];
            AlvkStatus status = run.Library.PatchRemove(handle, owner);
            if (status is AlvkStatus.Ok or AlvkStatus.UnknownPatch or AlvkStatus.PatchEnded or AlvkStatus.NotOwner)
                _holdings.Remove((handle, owner));
            if (Refused("remove", status))
                return;
            run.NoteAccepted(handle);
            MaybeWait("remove", handle);
        }

        private void Submit()
        {
            int target = _random.Next(run.Targets);
            ulong owner = Owner;
            bool bad = _random.Next(10) == 0;
            ulong latest = Volatile.Read(ref run.LatestHandle[target]);
            ulong prior = latest != 0 && run.Library.PatchGetTelemetry(latest, out AlvkPatchTelemetry t) == AlvkStatus.Ok &&
                          t.State is AlvkPatchState.Active or AlvkPatchState.Pending ? t.LatestGeneration : 0;
            AlvkGeneration g = AlvkGeneration.For(run.Descriptions[target], prior, owner);
            if (bad)
                unsafe { g.ExpectedBodyIdentity[31] ^= 0x01; }
            AlvkStatus status = run.SubmitBody(g, run.GenerationBody, out ulong handle, out ulong id);
            ulong command = run.Library.LastCommand();
            if (Refused("generationSubmit", status))
                return;
            run.Count("generationSubmit", bad ? "acceptedOtherBody" : "acceptedValid");
            if (!run.ReturnedIds.TryAdd(id, 0))
                Interlocked.Increment(ref run.DuplicateIds);
            run.NoteAccepted(handle);
            Volatile.Write(ref run.LatestHandle[target], handle);
            if (!bad)
            {
                run.EverHeld.TryAdd((handle, owner), 0);
                if (!_holdings.Contains((handle, owner)))
                    _holdings.Add((handle, owner));
            }
            if (_random.Next(2) == 0)
            {
                // Waits for this submission's own command (alvk_patch_wait would report the
                // patch's latest command, which may be another thread's).
                AlvkStatus wait = run.Library.CommandWait(command, Patcher.WaitMs, out AlvkStatus result);
                if (wait == AlvkStatus.Ok)
                    wait = result;
                run.Count("generationSubmit", $"wait.{wait}");
                run.CheckWait(handle, id, wait);
            }
        }

        private void Read()
        {
            int target = _random.Next(run.Targets);
            ulong handle = Volatile.Read(ref run.LatestHandle[target]);
            AlvkStatus telemetry = run.Library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t);
            _issued++;
            run.Count("reads", $"telemetry.{telemetry}");
            if (telemetry == AlvkStatus.Ok && t.LatestGeneration != 0)
            {
                _issued++;
                run.Count("reads", $"generationResult.{run.Library.GenerationGetResult(handle, t.LatestGeneration, out _, [])}");
            }
            _issued++;
            run.Count("reads", $"runtimeStatus.{run.Library.GetRuntimeStatus(out _)}");
        }

        private void Describe(bool heavy)
        {
            System.Reflection.MethodInfo method = heavy ? run.Heavy : MixedStressTargets.Method(_random.Next(run.Targets));
            AlvkStatus status = run.Library.DescribeMethod(method.Module.ModuleVersionId, method.MetadataToken, out _);
            _issued++;
            run.Count("describe", "calls");
            // Anything but a refusal to queue means the worker ran it (TIMEOUT: it will).
            run.Count("describe", status is AlvkStatus.QueueFull or AlvkStatus.WorkerUnavailable ? $"refused.{status}" : "accepted");
            if (status is not (AlvkStatus.QueueFull or AlvkStatus.WorkerUnavailable))
                run.Count("describe", $"status.{status}");
            BackOff(status);
        }

        private void Capture()
        {
            AlvkStatus begin = run.Library.CaptureBegin(new AlvkCaptureOptions { Mode = AlvkCaptureMode.CountOnly });
            _issued++;
            run.Count("captureBegin", "calls");
            run.Count("captureBegin", begin == AlvkStatus.Ok ? "accepted" : $"refused.{begin}");
            if (begin != AlvkStatus.Ok)
                return;
            for (int i = 0; i < 32; i++)
                _sink = new object();
            bool queueFull = false;
            AlvkStatus end;
            while (true)
            {
                end = run.Library.CaptureEnd(out _);
                _issued++;
                run.Count("captureEnd", "calls");
                bool reached = end is AlvkStatus.Ok or AlvkStatus.Timeout;
                run.Count("captureEnd", reached ? "accepted" : $"refused.{end}");
                run.CaptureOutcome(false, end, queueFull);
                if (end != AlvkStatus.QueueFull)
                    break;
                queueFull = true;
                BackOff(end);
            }
            run.CaptureOutcome(true, AlvkStatus.Internal, false);
        }
    }
}
