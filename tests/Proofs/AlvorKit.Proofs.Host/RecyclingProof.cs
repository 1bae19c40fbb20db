using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

public static class RecyclingTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)] public static int T0(int x) => x + 0;
    [MethodImpl(MethodImplOptions.NoInlining)] public static int T1(int x) => x + 1;
    [MethodImpl(MethodImplOptions.NoInlining)] public static int T2(int x) => x + 2;
    [MethodImpl(MethodImplOptions.NoInlining)] public static int T3(int x) => x + 3;
    [MethodImpl(MethodImplOptions.NoInlining)] public static int T4(int x) => x + 4;
    [MethodImpl(MethodImplOptions.NoInlining)] public static int T5(int x) => x + 5;
    [MethodImpl(MethodImplOptions.NoInlining)] public static int T6(int x) => x + 6;
    [MethodImpl(MethodImplOptions.NoInlining)] public static int T7(int x) => x + 7;

    // Installed and removed once per remaining slot.
    [MethodImpl(MethodImplOptions.NoInlining)] public static int Cycled(int x) => x + 50;

    public static int A(int x) => x + 100;

    public static int B(int x) => x + 1000;

    public static readonly Func<int, int>[] Calls = [T0, T1, T2, T3, T4, T5, T6, T7];
}

/// <summary>
/// The 256-slot patch table full of ended patches, then recycled one install at a time. Eight
/// targets are installed together and removed in reverse order (T7's patch ends first, T0's
/// last), then one target is installed and removed once for every remaining slot: 256 ended
/// patches, the oldest T7's, whatever their slot. Each of nine new installs must recycle the
/// oldest ended patch: T7's, T6's, ... T0's, then the first cycled one; the handle it recycled
/// answers ALVK_E_UNKNOWN_PATCH from every function that takes a handle, even with the new
/// patch's own owner, every other handle still answers, and the new patch behind the slot keeps
/// its state and its replacement.
/// </summary>
public static class RecyclingProof
{
    private const ulong OwnerBase = 0xB000, CycleOwner = 0xB100;
    private const int Input = 5;

    public static RecyclingReport Run()
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        IntPtr a = Patcher.EntryPoint(Patcher.Method(typeof(RecyclingTargets), nameof(RecyclingTargets.A)));
        IntPtr b = Patcher.EntryPoint(Patcher.Method(typeof(RecyclingTargets), nameof(RecyclingTargets.B)));
        AlvkMethodDescription[] targets = Enumerable.Range(0, 8)
            .Select(i => patcher.Describe(Patcher.Method(typeof(RecyclingTargets), $"T{i}"))).ToArray();
        AlvkMethodDescription cycled = patcher.Describe(Patcher.Method(typeof(RecyclingTargets), nameof(RecyclingTargets.Cycled)));

        // Phase 1: T0..T7 live together, removed T7 first.
        var eight = new ulong[8];
        var installs = new string[8];
        var removes = new string[8];
        for (int i = 0; i < 8; i++)
        {
            AlvkStatus sync = library.PatchInstall(AlvkInstallRequest.For(targets[i], a, OwnerBase + (ulong)i), out eight[i]);
            installs[i] = $"{sync}/{library.PatchWait(eight[i], Patcher.WaitMs)}";
        }
        TargetValues patchedValues = Values(i => RecyclingTargets.Calls[i](Input), Input + 100);
        int distinctEight = eight.Distinct().Count();
        for (int i = 7; i >= 0; i--)
            removes[i] = $"{library.PatchRemove(eight[i], OwnerBase + (ulong)i)}/{library.PatchWait(eight[i], Patcher.WaitMs)}";
        var phase1 = new RecyclingPhase1(installs, patchedValues, distinctEight, removes,
            Values(i => RecyclingTargets.Calls[i](Input), Input + 0, offsetByIndex: true));

        // Phase 2: one install and remove per remaining slot.
        var cycles = new List<ulong>();
        var refusals = new SortedDictionary<string, string>(StringComparer.Ordinal);
        for (int i = 0; i < AlvkConstants.MaxPatches - 8; i++)
        {
            AlvkStatus sync = library.PatchInstall(AlvkInstallRequest.For(cycled, b, CycleOwner), out ulong h);
            AlvkStatus wait = library.PatchWait(h, Patcher.WaitMs);
            AlvkStatus remove = library.PatchRemove(h, CycleOwner);
            AlvkStatus removed = library.PatchWait(h, Patcher.WaitMs);
            if (sync != AlvkStatus.Ok || wait != AlvkStatus.Ok || remove != AlvkStatus.Ok || removed != AlvkStatus.Ok)
                refusals[$"{i}"] = $"{sync}/{wait}/{remove}/{removed}";
            cycles.Add(h);
        }
        // Oldest ended first: T7's ... T0's, then the cycles in order.
        List<ulong> endedOrder = [.. eight.Reverse(), .. cycles];
        var phase2 = new RecyclingPhase2(cycles.Count, refusals, endedOrder.Distinct().Count(), States(library, endedOrder),
            RecyclingTargets.Cycled(Input));

        // Phase 3: nine installs, each recycling the oldest ended patch.
        var live = new HashSet<ulong>(endedOrder);
        var recycles = new List<Recycle>();
        var created = new List<(ulong Handle, ulong Owner)>();
        for (int step = 0; step < 9; step++)
        {
            ulong expected = endedOrder[step];
            ulong owner = step < 8 ? OwnerBase + (ulong)step : CycleOwner;
            AlvkMethodDescription target = step < 8 ? targets[step] : cycled;
            Func<int> call = step < 8 ? () => RecyclingTargets.Calls[step](Input) : () => RecyclingTargets.Cycled(Input);
            library.PatchGetTelemetry(expected, out AlvkPatchTelemetry stale);
            ulong staleGeneration = stale.LatestGeneration;

            AlvkStatus sync = library.PatchInstall(AlvkInstallRequest.For(target, b, owner), out ulong handle);
            AlvkStatus wait = library.PatchWait(handle, Patcher.WaitMs);
            created.Add((handle, owner));
            Polled<int> newValue = Patcher.PollFor(call, Input + 1000);
            bool differs = handle != expected, neverIssued = !live.Contains(handle);
            TelemetryReport newBefore = patcher.ReadTelemetry(handle);
            library.PatchGetTelemetry(handle, out AlvkPatchTelemetry newTelemetry);
            ulong newGeneration = newTelemetry.LatestGeneration;

            // Which previously valid handles stopped answering: exactly the oldest ended one.
            var gone = live.Where(h => library.PatchGetTelemetry(h, out _) != AlvkStatus.Ok).ToList();
            int goneCount = gone.Count;
            bool goneIsOldest = gone.Count == 1 && gone[0] == expected;
            int goneIndex = gone.Count == 1 ? endedOrder.IndexOf(gone[0]) : -1;
            live.ExceptWith(gone);

            // The stale handle, through every function that takes a handle, with its old owner
            // and with the new patch's owner.
            var stale1 = new SortedDictionary<string, string>(StringComparer.Ordinal);
            foreach ((string who, ulong o) in new[] { ("staleOwner", step < 8 ? OwnerBase + (ulong)step : CycleOwner), ("newOwner", owner) })
            {
                stale1[$"replace.{who}"] = library.PatchReplace(expected, o, a).ToString();
                stale1[$"remove.{who}"] = library.PatchRemove(expected, o).ToString();
            }
            stale1["wait"] = library.PatchWait(expected, 100).ToString();
            stale1["telemetry"] = library.PatchGetTelemetry(expected, out _).ToString();
            stale1["generationResult"] = library.GenerationGetResult(expected, staleGeneration, out _, []).ToString();
            stale1["generationResultOfNew"] = library.GenerationGetResult(expected, newGeneration, out _, []).ToString();

            // The new patch behind the slot is what it was.
            TelemetryReport newAfter = patcher.ReadTelemetry(handle);
            int newValueAfter = call();
            string generation = library.GenerationGetResult(handle, newGeneration, out AlvkGenerationResult r, []) == AlvkStatus.Ok
                ? r.State.ToString() : "missing";
            recycles.Add(new Recycle(sync.ToString(), wait.ToString(), newValue, differs, neverIssued, goneCount, goneIsOldest,
                goneIndex, stale1, Stable(newBefore) == Stable(newAfter), newAfter, newValueAfter, generation));
        }
        bool othersStillAnswer = live.All(h => library.PatchGetTelemetry(h, out AlvkPatchTelemetry t) == AlvkStatus.Ok && t.State == AlvkPatchState.Removed);
        int othersCount = live.Count;

        // Clean up: every target returns its original.
        var removals = new SortedDictionary<string, string>(StringComparer.Ordinal);
        foreach ((ulong handle, ulong owner) in created)
            removals[$"{handle:X}"] = $"{library.PatchRemove(handle, owner)}/{library.PatchWait(handle, Patcher.WaitMs)}";
        TargetValues finalValues = Values(i => RecyclingTargets.Calls[i](Input), Input, offsetByIndex: true);
        return new RecyclingReport(phase1, phase2, recycles, othersStillAnswer, othersCount, removals, finalValues,
            Patcher.PollFor(() => RecyclingTargets.Cycled(Input), Input + 50));
    }

    // The telemetry fields no callback moves (tiering may compile the body again).
    private static (string, string, string, uint, uint, uint, ulong, ulong) Stable(TelemetryReport t) =>
        (t.Call, t.State, t.LastStatus, t.PendingCommands, t.CommandsCompleted, t.OwnerCount, t.Replacement, t.CommandElapsedNs);

    private static SortedDictionary<string, int> States(ProfilerLibrary library, IEnumerable<ulong> handles)
    {
        var counts = new SortedDictionary<string, int>(StringComparer.Ordinal);
        foreach (ulong h in handles)
        {
            string key = library.PatchGetTelemetry(h, out AlvkPatchTelemetry t) == AlvkStatus.Ok ? t.State.ToString() : "UnknownPatch";
            counts[key] = counts.GetValueOrDefault(key) + 1;
        }
        return counts;
    }

    // T0..T7 each polled for `expected` (+ its index when offsetByIndex): true when all match.
    private static TargetValues Values(Func<int, int> call, int expected, bool offsetByIndex = false)
    {
        var polls = new List<Polled<int>>();
        for (int i = 0; i < 8; i++)
        {
            int want = expected + (offsetByIndex ? i : 0);
            polls.Add(Patcher.PollFor(() => call(i), want));
        }
        return new TargetValues(polls, polls.All(p => p.Ok));
    }
}
