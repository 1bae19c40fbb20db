using System.Reflection;
using System.Reflection.Metadata;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

public static class QueueFullTargets
{
    // P: a live patch with four generations (install, three replaces) the probes aim at.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Probed(int x) => x + 1;

    // Q: never patched; a refused install must not patch it or take a slot.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Fresh(int x) => x + 2;

    // R: never patched; a refused first generation must not patch it or take a slot.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int FreshGeneration(int x) => x + 3;

    // E: installed and removed until every patch slot holds an ended patch.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Ended(int x) => x + 4;

    public static int A(int x) => x + 100;

    public static int B(int x) => x + 1000;
}

/// <summary>The type the capture-end probe's window counts.</summary>
public sealed class QueueFullMarker
{
    public int Value { get; set; }
}

/// <summary>
/// Every command kind refused with ALVK_E_QUEUE_FULL, and nothing changed by the refusal.
/// The patch table is first filled with ended patches (so a refused install that took a slot
/// would have to recycle one), a patch P gets four generations (so a refused command that
/// opened a generation record would have to evict one), and a sampled capture window ends (so
/// alvk_capture_describe_function has something to name). Then each kind gets its own
/// QueueSaturator round (the worker held on one long command, every other slot filled, proven
/// full for the whole round): install of a new target, install joining P, replace, remove,
/// generation submit on P, a first generation on a new target, describe and
/// capture_describe_function, with the state each could touch read just before and just after
/// it, inside the round. After the queue drains: that state again, P's wait status, and the ID
/// one more filler takes (the last filler's plus one, unless a refusal took one). A last round
/// holds a count-only capture window open and refuses alvk_capture_end: the window must still
/// be open afterwards, counting what it counted.
/// </summary>
public static unsafe class QueueFullProof
{
    private const ulong OwnerA = 0x9001, OwnerB = 0x9002, OwnerQ = 0x9003, OwnerR = 0x9004, OwnerE = 0x9005;
    private const int Input = 5, GenerationAdd = 5000, MaxAttempts = 50;
    private const string MarkerType = "AlvorKit.Proofs.Host.QueueFullMarker";

    private static object? _sink;

    public static QueueFullReport Run()
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        library.GetRuntimeStatus(out AlvkRuntimeStatus runtime);
        var saturator = new QueueSaturator(patcher, HeavyModule.Load());
        var env = new Env(patcher, saturator);
        QueueFullSetup setup = env.Setup();
        IReadOnlyDictionary<string, CommandProbe> commands = CommandRounds(env);
        CaptureEndProbe? captureEnd = runtime.AllocationProfiling == 1 ? CaptureEndRound(env) : null;
        return new QueueFullReport(runtime.QueueCapacity, runtime.AllocationProfiling, setup, commands, captureEnd,
            new QueueFullFinalValues(QueueFullTargets.Fresh(Input), QueueFullTargets.FreshGeneration(Input)));
    }

    private sealed class Env(Patcher patcher, QueueSaturator saturator)
    {
        public Patcher Patcher { get; } = patcher;
        public ProfilerLibrary Library { get; } = patcher.Library;
        public QueueSaturator Saturator { get; } = saturator;
        public MethodInfo Probed { get; } = Patcher.Method(typeof(QueueFullTargets), nameof(QueueFullTargets.Probed));
        public IntPtr EntryA { get; } = Patcher.EntryPoint(Patcher.Method(typeof(QueueFullTargets), nameof(QueueFullTargets.A)));
        public IntPtr EntryB { get; } = Patcher.EntryPoint(Patcher.Method(typeof(QueueFullTargets), nameof(QueueFullTargets.B)));
        public ulong P { get; private set; }
        public List<ulong> Generations { get; } = [];
        public List<ulong> EndedHandles { get; } = [];
        public ulong FunctionId { get; private set; }

        // Described before any round: alvk_describe_method is itself a worker command.
        private readonly Dictionary<string, AlvkMethodDescription> _descriptions = new[]
        {
            nameof(QueueFullTargets.Probed), nameof(QueueFullTargets.Fresh), nameof(QueueFullTargets.FreshGeneration),
            nameof(QueueFullTargets.Ended),
        }.ToDictionary(n => n, n => patcher.Describe(Patcher.Method(typeof(QueueFullTargets), n)));

        public AlvkMethodDescription Description(string target) => _descriptions[target];

        public AlvkInstallRequest Request(string target, ulong owner, IntPtr replacement) =>
            AlvkInstallRequest.For(_descriptions[target], replacement, owner);

        public QueueFullSetup Setup()
        {
            for (int i = 0; i < 3; i++)
                QueueFullTargets.Probed(Input);
            ProbedSetup probed = PrepareProbed();
            // Every other slot: an ended patch (install and remove of E, one slot each).
            AlvkInstallRequest ended = Request(nameof(QueueFullTargets.Ended), OwnerE, EntryA);
            int live = 2; // P and the filler patch
            for (int i = 0; i < AlvkConstants.MaxPatches - live; i++)
            {
                if (Library.PatchInstall(ended, out ulong h) != AlvkStatus.Ok || Library.PatchWait(h, Patcher.WaitMs) != AlvkStatus.Ok ||
                    Library.PatchRemove(h, OwnerE) != AlvkStatus.Ok || Library.PatchWait(h, Patcher.WaitMs) != AlvkStatus.Ok)
                    throw new InvalidOperationException($"ended patch {i} could not be made");
                EndedHandles.Add(h);
            }
            return new QueueFullSetup(probed, EndedHandles.Count, EndedHandles.All(h => State(h) == "Removed"),
                QueueFullTargets.Ended(Input), SampledWindow());
        }

        // P: installed by OwnerA with A, then B, A, B: four generation records, all compiled.
        public ProbedSetup PrepareProbed()
        {
            Generations.Clear();
            AlvkStatus sync = Library.PatchInstall(Request(nameof(QueueFullTargets.Probed), OwnerA, EntryA), out ulong handle);
            string wait = Library.PatchWait(handle, Patcher.WaitMs).ToString();
            P = handle;
            Generations.Add(Telemetry(handle).LatestGeneration);
            foreach (IntPtr entry in new[] { EntryB, EntryA, EntryB })
            {
                Library.PatchReplace(handle, OwnerA, entry);
                Library.PatchWait(handle, Patcher.WaitMs);
                Generations.Add(Telemetry(handle).LatestGeneration);
            }
            Polled<int> value = Patcher.PollFor(() => QueueFullTargets.Probed(Input), Input + 1000);
            GenerationResultReport current = Patcher.SettleGeneration(handle, Telemetry(handle).CurrentGeneration);
            return new ProbedSetup(sync.ToString(), wait, value, current, [.. Generations]);
        }

        // A sampled window: afterwards alvk_capture_describe_function has a recorded FunctionID.
        private SampledWindow SampledWindow()
        {
            AlvkStatus begin = Library.CaptureBegin(new AlvkCaptureOptions { Mode = AlvkCaptureMode.Sampled, SampleIntervalBytes = 64 });
            for (int i = 0; i < 2000; i++)
                _sink = new QueueFullMarker { Value = i };
            AlvkStatus end = Library.CaptureEnd(out AlvkCaptureSummary summary);
            var samples = new AlvkSample[Math.Max(1, (int)summary.SampleCount)];
            Library.CaptureReadSamples(0, samples, out uint written);
            foreach (AlvkSample s in samples.Take((int)written))
            {
                if (FunctionId != 0)
                    break;
                for (int f = 0; f < s.FrameCount && FunctionId == 0; f++)
                    FunctionId = s.Frames[f].FunctionId;
            }
            return new SampledWindow(begin.ToString(), end.ToString(), summary.SampleCount, FunctionId != 0,
                Library.CaptureDescribeFunction(FunctionId, out _).ToString());
        }

        public AlvkPatchTelemetry Telemetry(ulong handle)
        {
            Library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t);
            return t;
        }

        public string State(ulong handle) =>
            Library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t) == AlvkStatus.Ok ? t.State.ToString() : "gone";

        // What a command on P could change: the fields commands set (not the callback counters,
        // which tiering may move), every generation record, and what P's target returns.
        public ProbeState ProbedState()
        {
            AlvkStatus rc = Library.PatchGetTelemetry(P, out AlvkPatchTelemetry t);
            var records = new SortedDictionary<string, string>(StringComparer.Ordinal);
            foreach (ulong g in Generations)
            {
                Span<AlvkRelocationResult> none = [];
                AlvkStatus r = Library.GenerationGetResult(P, g, out AlvkGenerationResult result, none);
                records[g.ToString()] = r == AlvkStatus.Ok ? $"{result.State}/{result.Status}/prior {result.PriorGeneration}" : r.ToString();
            }
            var patch = new ProbedPatchState(rc.ToString(), t.State.ToString(), t.LastStatus.ToString(), t.PendingCommands,
                t.CommandsCompleted, t.OwnerCount, t.Replacement, t.CurrentGeneration, t.LatestGeneration, t.RequestHResult,
                t.CalliSignatureToken, t.CommandElapsedNs, records);
            return new ProbeState(QueueFullTargets.Probed(Input), null, null, patch, null);
        }

        // Every ended handle: how many still answer as removed patches with their two commands,
        // and the first few that do not (cheap enough to read twice inside a round).
        public EndedPatches EndedState()
        {
            int removed = 0;
            var others = new List<string>();
            foreach (ulong h in EndedHandles)
            {
                AlvkStatus rc = Library.PatchGetTelemetry(h, out AlvkPatchTelemetry t);
                if (rc == AlvkStatus.Ok && t.State == AlvkPatchState.Removed && t.CommandsCompleted == 2)
                    removed++;
                else if (others.Count < 5)
                    others.Add($"{h:X}: {(rc == AlvkStatus.Ok ? $"{t.State}/{t.CommandsCompleted}" : rc.ToString())}");
            }
            return new EndedPatches(EndedHandles.Count, removed, others);
        }

        // The ID one more filler replace takes, against the last filler's: a refusal in the round
        // that consumed an ID shows as a gap.
        public NextGenerationCheck NextGeneration()
        {
            ulong last = Saturator.FillerLatestGeneration;
            AlvkStatus fill = Saturator.Fill();
            Library.PatchWait(Saturator.FillerHandle, Patcher.WaitMs);
            ulong next = Saturator.FillerLatestGeneration;
            return new NextGenerationCheck(fill.ToString(), last, next, last + 1);
        }

        // One more ended patch: the table is full of ended patches again whether the round freed
        // a slot or not (recycling the oldest ended one when it did not).
        public void TopUp()
        {
            AlvkInstallRequest ended = Request(nameof(QueueFullTargets.Ended), OwnerE, EntryA);
            if (Library.PatchInstall(ended, out ulong h) == AlvkStatus.Ok && Library.PatchWait(h, Patcher.WaitMs) == AlvkStatus.Ok &&
                Library.PatchRemove(h, OwnerE) == AlvkStatus.Ok)
            {
                Library.PatchWait(h, Patcher.WaitMs);
                EndedHandles.Add(h);
            }
            EndedHandles.RemoveAll(x => State(x) == "gone");
        }

        // Undoes whatever accepted probes did in an invalid round, and makes P again.
        public void Reset()
        {
            foreach ((string target, ulong owner) in new[]
                     {
                         (nameof(QueueFullTargets.Fresh), OwnerQ), (nameof(QueueFullTargets.FreshGeneration), OwnerR),
                         (nameof(QueueFullTargets.Probed), OwnerA), (nameof(QueueFullTargets.Probed), OwnerB),
                     })
            {
                // A join by a bad request finds the live patch (if any) without changing it.
                AlvkInstallRequest probe = Request(target, owner, EntryA);
                probe.SignatureHash[0] ^= 0xFF;
                if (Library.PatchInstall(probe, out ulong h) == AlvkStatus.Ok)
                {
                    Library.PatchWait(h, Patcher.WaitMs);
                    if (Library.PatchRemove(h, owner) == AlvkStatus.Ok)
                        Library.PatchWait(h, Patcher.WaitMs);
                }
            }
            PrepareProbed(); // may recycle an ended slot
            EndedHandles.RemoveAll(h => State(h) == "gone");
        }
    }

    // One round per command kind: the kind refused, and what it could have touched.
    private static SortedDictionary<string, CommandProbe> CommandRounds(Env env)
    {
        ProfilerLibrary library = env.Library;
        var probes = new SortedDictionary<string, CommandProbe>(StringComparer.Ordinal);
        ProbeState Fresh() => new(null, QueueFullTargets.Fresh(Input), null, null, env.EndedState());
        ProbeState FreshGeneration() => new(null, null, QueueFullTargets.FreshGeneration(Input), null, env.EndedState());
        ProbeState Nothing() => new(null, null, null, null, null);

        probes["install"] = ProbeRound(env, Fresh, json =>
        {
            AlvkStatus s = library.PatchInstall(env.Request(nameof(QueueFullTargets.Fresh), OwnerQ, env.EntryA), out ulong h);
            json.HandleWritten = h != 0;
            return s;
        });
        probes["installJoin"] = ProbeRound(env, env.ProbedState, json =>
        {
            AlvkStatus s = library.PatchInstall(env.Request(nameof(QueueFullTargets.Probed), OwnerB, env.EntryA), out ulong h);
            json.HandleWritten = h != 0;
            return s;
        });
        probes["replace"] = ProbeRound(env, env.ProbedState, _ => library.PatchReplace(env.P, OwnerA, env.EntryA));
        probes["remove"] = ProbeRound(env, env.ProbedState, _ => library.PatchRemove(env.P, OwnerA));
        probes["generationSubmit"] = ProbeRound(env, env.ProbedState, json =>
        {
            ulong prior = env.Telemetry(env.P).LatestGeneration;
            AlvkStatus s = Submit(env, nameof(QueueFullTargets.Probed), prior, OwnerA, out ulong h, out ulong id);
            json.Prior = prior;
            json.HandleWritten = h != 0;
            json.IdWritten = id != 0;
            return s;
        });
        probes["generationSubmitNew"] = ProbeRound(env, FreshGeneration, json =>
        {
            AlvkStatus s = Submit(env, nameof(QueueFullTargets.FreshGeneration), 0, OwnerR, out ulong h, out ulong id);
            json.HandleWritten = h != 0;
            json.IdWritten = id != 0;
            return s;
        });
        probes["describe"] = ProbeRound(env, Nothing, json =>
        {
            AlvkStatus s = library.DescribeMethod(env.Probed.Module.ModuleVersionId, env.Probed.MetadataToken,
                out AlvkMethodDescription d);
            json.OutWritten = d.MethodToken != 0 || d.BodySize != 0;
            return s;
        });
        if (env.FunctionId != 0)
        {
            probes["describeFunction"] = ProbeRound(env, Nothing, json =>
            {
                AlvkStatus s = library.CaptureDescribeFunction(env.FunctionId, out AlvkMethodInfo info);
                json.OutWritten = info.MethodToken != 0;
                return s;
            });
        }
        return probes;
    }

    // Rounds until one is valid; then, with the queue drained: the state again, the ID the next
    // filler takes, and one more ended patch so the table is full again for the next round.
    private static CommandProbe ProbeRound(Env env, Func<ProbeState> state, Func<ProbeOutputs, AlvkStatus> call)
    {
        var attempts = new List<CommandAttempt>();
        // Compiled before any round: a first call inside a round would spend it in the JIT.
        RuntimeHelpers.PrepareMethod(state.Method.MethodHandle);
        RuntimeHelpers.PrepareMethod(call.Method.MethodHandle);
        ProbeOutputs outputs = new();
        ProbeState s0 = new(null, null, null, null, null), s1 = s0;
        AlvkStatus status = AlvkStatus.Internal;
        for (int attempt = 0; attempt < MaxAttempts; attempt++)
        {
            env.TopUp(); // whatever an earlier attempt's refusal freed, the table is full again
            var json = new ProbeOutputs();
            status = AlvkStatus.Internal;
            SaturationRound round = env.Saturator.Round(() =>
            {
                s0 = state();
                status = call(json);
                s1 = state();
            });
            attempts.Add(new CommandAttempt(round, attempt, status.ToString()));
            if (round.Valid)
            {
                outputs = json;
                break;
            }
            env.Saturator.Quiet();
            if (status != AlvkStatus.QueueFull && round.BlockerRunning)
                env.Reset();
        }
        if (!attempts.Last().Round.Valid)
            return new CommandProbe(attempts, null);

        // The queue drained: the fillers ran, the refused command never did.
        env.Saturator.Quiet();
        ProbeState drained = state();
        bool unchanged = Same(s0, s1), unchangedAfterDrain = Same(s0, drained);
        return new CommandProbe(attempts, new ValidProbe(outputs, status.ToString(), unchanged, s0,
            unchanged ? null : s1, unchangedAfterDrain, unchangedAfterDrain ? null : drained,
            env.Library.PatchWait(env.P, 100).ToString(), env.NextGeneration()));
    }

    // Two states alike in every field, their generation records and ended handles among them.
    private static bool Same(ProbeState a, ProbeState b) => ReportJson.Write(a) == ReportJson.Write(b);

    // Round 2: a capture window open, alvk_capture_end refused; the window stays open.
    private static CaptureEndProbe CaptureEndRound(Env env)
    {
        ProfilerLibrary library = env.Library;
        var attempts = new List<CaptureEndAttempt>();
        int markers = 0;
        var options = new AlvkCaptureOptions { Mode = AlvkCaptureMode.CountOnly };
        for (int attempt = 0; attempt < MaxAttempts; attempt++)
        {
            AlvkStatus begin = library.CaptureBegin(options);
            if (begin == AlvkStatus.Ok)
                markers = 0;
            markers += Allocate(100);
            AlvkStatus end = AlvkStatus.Internal;
            AlvkCaptureSummary summary = default;
            SaturationRound round = env.Saturator.Round(() => end = library.CaptureEnd(out summary));
            attempts.Add(new CaptureEndAttempt(round, attempt, begin.ToString(), end.ToString(),
                summary.TotalObjects != 0 || summary.Mode != 0 || summary.ElapsedNs != 0));
            if (round.Valid)
                break;
            env.Saturator.Quiet();
        }
        if (!attempts.Last().Round.Valid)
            return new CaptureEndProbe(attempts, null);

        env.Saturator.Quiet();
        markers += Allocate(50);
        var types = new AlvkTypeCount[256];
        AlvkStatus read = library.CaptureReadTypes(0, types, out _);
        AlvkStatus again = library.CaptureBegin(options);
        AlvkStatus end2 = library.CaptureEnd(out AlvkCaptureSummary finalSummary);
        long counted = -1;
        if (end2 == AlvkStatus.Ok && library.CaptureReadTypes(0, types, out uint written) == AlvkStatus.Ok)
            counted = types.Take((int)written).Where(t => t.Name == MarkerType).Select(t => (long)t.Count).DefaultIfEmpty(0).Sum();
        return new CaptureEndProbe(attempts, new CaptureWindowAfter(read.ToString(), again.ToString(), end2.ToString(), markers,
            counted, finalSummary.TotalObjects));
    }

    private static int Allocate(int count)
    {
        for (int i = 0; i < count; i++)
            _sink = new QueueFullMarker { Value = i };
        return count;
    }

    // A generation for `target` whose body returns x + GenerationAdd.
    private static AlvkStatus Submit(Env env, string target, ulong prior, ulong owner, out ulong handle, out ulong id)
    {
        var b = new GenerationBuilder();
        b.IL.LoadArgument(0);
        b.IL.LoadConstantI4(GenerationAdd);
        b.IL.OpCode(ILOpCode.Add);
        b.IL.OpCode(ILOpCode.Ret);
        return b.Submit(env.Library, env.Description(target), prior, owner, out handle, out id);
    }
}
