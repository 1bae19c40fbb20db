using System.Reflection;
using System.Reflection.Metadata;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using AlvorKit.Interception.Native;

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
    public int Value;
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

    public static JsonObject Run()
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        library.GetRuntimeStatus(out AlvkRuntimeStatus runtime);
        var saturator = new QueueSaturator(patcher, HeavyModule.Load());
        var report = new JsonObject
        {
            ["queueCapacity"] = runtime.QueueCapacity,
            ["allocationProfiling"] = runtime.AllocationProfiling,
        };
        var env = new Env(patcher, saturator);
        report["setup"] = env.Setup();
        report["commands"] = CommandRounds(env);
        if (runtime.AllocationProfiling == 1)
            report["captureEnd"] = CaptureEndRound(env);
        report["finalValues"] = new JsonObject
        {
            ["fresh"] = QueueFullTargets.Fresh(Input),
            ["freshGeneration"] = QueueFullTargets.FreshGeneration(Input),
        };
        return report;
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

        public JsonObject Setup()
        {
            var setup = new JsonObject();
            for (int i = 0; i < 3; i++)
                QueueFullTargets.Probed(Input);
            setup["probed"] = PrepareProbed();
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
            setup["endedPatches"] = EndedHandles.Count;
            setup["endedAllRemoved"] = EndedHandles.All(h => State(h) == "Removed");
            setup["endedValue"] = QueueFullTargets.Ended(Input);
            setup["capture"] = SampledWindow();
            return setup;
        }

        // P: installed by OwnerA with A, then B, A, B: four generation records, all compiled.
        public JsonObject PrepareProbed()
        {
            Generations.Clear();
            AlvkStatus sync = Library.PatchInstall(Request(nameof(QueueFullTargets.Probed), OwnerA, EntryA), out ulong handle);
            var json = new JsonObject { ["install"] = sync.ToString(), ["wait"] = Library.PatchWait(handle, Patcher.WaitMs).ToString() };
            P = handle;
            Generations.Add(Telemetry(handle).LatestGeneration);
            foreach (IntPtr entry in new[] { EntryB, EntryA, EntryB })
            {
                Library.PatchReplace(handle, OwnerA, entry);
                Library.PatchWait(handle, Patcher.WaitMs);
                Generations.Add(Telemetry(handle).LatestGeneration);
            }
            json["value"] = Patcher.Poll(() => QueueFullTargets.Probed(Input), Input + 1000);
            json["current"] = Patcher.SettledGeneration(handle, Telemetry(handle).CurrentGeneration);
            json["generations"] = new JsonArray(Generations.Select(g => (JsonNode)JsonValue.Create(g)).ToArray());
            return json;
        }

        // A sampled window: afterwards alvk_capture_describe_function has a recorded FunctionID.
        private JsonObject SampledWindow()
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
            return new JsonObject
            {
                ["begin"] = begin.ToString(),
                ["end"] = end.ToString(),
                ["samples"] = summary.SampleCount,
                ["functionId"] = FunctionId != 0,
                ["describe"] = Library.CaptureDescribeFunction(FunctionId, out _).ToString(),
            };
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
        public JsonObject ProbedState()
        {
            AlvkStatus rc = Library.PatchGetTelemetry(P, out AlvkPatchTelemetry t);
            var records = new JsonObject();
            foreach (ulong g in Generations)
            {
                Span<AlvkRelocationResult> none = [];
                AlvkStatus r = Library.GenerationGetResult(P, g, out AlvkGenerationResult result, none);
                records[g.ToString()] = r == AlvkStatus.Ok ? $"{result.State}/{result.Status}/prior {result.PriorGeneration}" : r.ToString();
            }
            return new JsonObject
            {
                ["telemetry"] = rc.ToString(),
                ["state"] = t.State.ToString(),
                ["lastStatus"] = t.LastStatus.ToString(),
                ["pendingCommands"] = t.PendingCommands,
                ["commandsCompleted"] = t.CommandsCompleted,
                ["ownerCount"] = t.OwnerCount,
                ["replacement"] = t.Replacement,
                ["currentGeneration"] = t.CurrentGeneration,
                ["latestGeneration"] = t.LatestGeneration,
                ["requestHResult"] = t.RequestHResult,
                ["calliSignatureToken"] = t.CalliSignatureToken,
                ["commandElapsedNs"] = t.CommandElapsedNs,
                ["records"] = records,
                ["value"] = QueueFullTargets.Probed(Input),
            };
        }

        // Every ended handle: how many still answer as removed patches with their two commands,
        // and the first few that do not (cheap enough to read twice inside a round).
        public JsonObject EndedState()
        {
            int removed = 0;
            var others = new JsonArray();
            foreach (ulong h in EndedHandles)
            {
                AlvkStatus rc = Library.PatchGetTelemetry(h, out AlvkPatchTelemetry t);
                if (rc == AlvkStatus.Ok && t.State == AlvkPatchState.Removed && t.CommandsCompleted == 2)
                    removed++;
                else if (others.Count < 5)
                    others.Add($"{h:X}: {(rc == AlvkStatus.Ok ? $"{t.State}/{t.CommandsCompleted}" : rc.ToString())}");
            }
            return new JsonObject { ["handles"] = EndedHandles.Count, ["removed"] = removed, ["others"] = others };
        }

        // The ID one more filler replace takes, against the last filler's: a refusal in the round
        // that consumed an ID shows as a gap.
        public JsonObject NextGeneration()
        {
            ulong last = Saturator.FillerLatestGeneration;
            AlvkStatus fill = Saturator.Fill();
            Library.PatchWait(Saturator.FillerHandle, Patcher.WaitMs);
            ulong next = Saturator.FillerLatestGeneration;
            return new JsonObject { ["fill"] = fill.ToString(), ["last"] = last, ["next"] = next, ["expected"] = last + 1 };
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
    private static JsonObject CommandRounds(Env env)
    {
        ProfilerLibrary library = env.Library;
        var probes = new JsonObject();
        JsonObject Fresh() => new() { ["fresh"] = QueueFullTargets.Fresh(Input), ["ended"] = env.EndedState() };
        JsonObject FreshGeneration() => new()
        {
            ["freshGeneration"] = QueueFullTargets.FreshGeneration(Input), ["ended"] = env.EndedState(),
        };
        JsonObject Nothing() => new();

        probes["install"] = ProbeRound(env, Fresh, json =>
        {
            AlvkStatus s = library.PatchInstall(env.Request(nameof(QueueFullTargets.Fresh), OwnerQ, env.EntryA), out ulong h);
            json["handleWritten"] = h != 0;
            return s;
        });
        probes["installJoin"] = ProbeRound(env, env.ProbedState, json =>
        {
            AlvkStatus s = library.PatchInstall(env.Request(nameof(QueueFullTargets.Probed), OwnerB, env.EntryA), out ulong h);
            json["handleWritten"] = h != 0;
            return s;
        });
        probes["replace"] = ProbeRound(env, env.ProbedState, _ => library.PatchReplace(env.P, OwnerA, env.EntryA));
        probes["remove"] = ProbeRound(env, env.ProbedState, _ => library.PatchRemove(env.P, OwnerA));
        probes["generationSubmit"] = ProbeRound(env, env.ProbedState, json =>
        {
            ulong prior = env.Telemetry(env.P).LatestGeneration;
            AlvkStatus s = Submit(env, nameof(QueueFullTargets.Probed), prior, OwnerA, out ulong h, out ulong id);
            json["prior"] = prior;
            json["handleWritten"] = h != 0;
            json["idWritten"] = id != 0;
            return s;
        });
        probes["generationSubmitNew"] = ProbeRound(env, FreshGeneration, json =>
        {
            AlvkStatus s = Submit(env, nameof(QueueFullTargets.FreshGeneration), 0, OwnerR, out ulong h, out ulong id);
            json["handleWritten"] = h != 0;
            json["idWritten"] = id != 0;
            return s;
        });
        probes["describe"] = ProbeRound(env, Nothing, json =>
        {
            AlvkStatus s = library.DescribeMethod(env.Probed.Module.ModuleVersionId, env.Probed.MetadataToken,
                out AlvkMethodDescription d);
            json["outWritten"] = d.MethodToken != 0 || d.BodySize != 0;
            return s;
        });
        if (env.FunctionId != 0)
        {
            probes["describeFunction"] = ProbeRound(env, Nothing, json =>
            {
                AlvkStatus s = library.CaptureDescribeFunction(env.FunctionId, out AlvkMethodInfo info);
                json["outWritten"] = info.MethodToken != 0;
                return s;
            });
        }
        return probes;
    }

    // Rounds until one is valid; then, with the queue drained: the state again, the ID the next
    // filler takes, and one more ended patch so the table is full again for the next round.
    private static JsonObject ProbeRound(Env env, Func<JsonObject> state, Func<JsonObject, AlvkStatus> call)
    {
        var attempts = new JsonArray();
        var probe = new JsonObject { ["attempts"] = attempts };
        // Compiled before any round: a first call inside a round would spend it in the JIT.
        RuntimeHelpers.PrepareMethod(state.Method.MethodHandle);
        RuntimeHelpers.PrepareMethod(call.Method.MethodHandle);
        for (int attempt = 0; attempt < MaxAttempts; attempt++)
        {
            env.TopUp(); // whatever an earlier attempt's refusal freed, the table is full again
            JsonObject json = new(), s0 = new(), s1 = new();
            AlvkStatus status = AlvkStatus.Internal;
            JsonObject round = env.Saturator.Round(() =>
            {
                s0 = state();
                status = call(json);
                s1 = state();
            });
            round["attempt"] = attempt;
            round["status"] = status.ToString();
            attempts.Add(round);
            if (round["valid"]!.GetValue<bool>())
            {
                foreach (var kv in json.ToList())
                {
                    json.Remove(kv.Key);
                    probe[kv.Key] = kv.Value;
                }
                probe["status"] = status.ToString();
                probe["unchanged"] = JsonNode.DeepEquals(s0, s1);
                probe["before"] = s0;
                if (!JsonNode.DeepEquals(s0, s1))
                    probe["after"] = s1;
                break;
            }
            env.Saturator.Quiet();
            if (status != AlvkStatus.QueueFull && round["blockerRunning"]!.GetValue<bool>())
                env.Reset();
        }
        if (!attempts.Last()!["valid"]!.GetValue<bool>())
            return probe;

        // The queue drained: the fillers ran, the refused command never did.
        env.Saturator.Quiet();
        JsonObject drained = state();
        probe["unchangedAfterDrain"] = JsonNode.DeepEquals(probe["before"], drained);
        if (!JsonNode.DeepEquals(probe["before"], drained))
            probe["afterDrain"] = drained;
        probe["probedWait"] = env.Library.PatchWait(env.P, 100).ToString();
        probe["nextGeneration"] = env.NextGeneration();
        return probe;
    }

    // Round 2: a capture window open, alvk_capture_end refused; the window stays open.
    private static JsonObject CaptureEndRound(Env env)
    {
        ProfilerLibrary library = env.Library;
        var attempts = new JsonArray();
        var report = new JsonObject { ["attempts"] = attempts };
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
            JsonObject round = env.Saturator.Round(() => end = library.CaptureEnd(out summary));
            round["attempt"] = attempt;
            round["begin"] = begin.ToString();
            round["end"] = end.ToString();
            round["summaryWritten"] = summary.TotalObjects != 0 || summary.Mode != 0 || summary.ElapsedNs != 0;
            attempts.Add(round);
            if (round["valid"]!.GetValue<bool>())
                break;
            env.Saturator.Quiet();
        }
        if (!attempts.Last()!["valid"]!.GetValue<bool>())
            return report;

        env.Saturator.Quiet();
        markers += Allocate(50);
        var types = new AlvkTypeCount[256];
        AlvkStatus read = library.CaptureReadTypes(0, types, out _);
        AlvkStatus again = library.CaptureBegin(options);
        AlvkStatus end2 = library.CaptureEnd(out AlvkCaptureSummary finalSummary);
        long counted = -1;
        if (end2 == AlvkStatus.Ok && library.CaptureReadTypes(0, types, out uint written) == AlvkStatus.Ok)
            counted = types.Take((int)written).Where(t => t.Name == MarkerType).Select(t => (long)t.Count).DefaultIfEmpty(0).Sum();
        report["after"] = new JsonObject
        {
            ["readTypesWhileOpen"] = read.ToString(),
            ["beginWhileOpen"] = again.ToString(),
            ["end"] = end2.ToString(),
            ["markersAllocated"] = markers,
            ["markersCounted"] = counted,
            ["totalObjects"] = finalSummary.TotalObjects,
        };
        return report;
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
