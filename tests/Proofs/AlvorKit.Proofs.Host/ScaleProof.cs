using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>Replacements for the scale targets.</summary>
public static class ScaleReplacements
{
    public static int Patched(int x) => x + 1_000_000;

    // The wrong signature for every target (long, not int).
    public static int Mismatched(long x) => (int)x;
}

/// <summary>
/// The patch table at scale:
///   batch   - 1,000 distinct targets installed with one Interceptor.InstallMany, each called
///             patched, then all removed and called original;
///   refused - batches with one bad request, refused whole: by the managed API (a signature
///             mismatch, a target named twice), by the worker (one body identity that does not
///             match: nothing published), and at the call (NULLs, a count of 0 or above the
///             bound, a stride mismatch, an odd stride, a duplicate target, mixed inliner
///             fallback flags);
///   bound   - single installs on distinct targets past the old 256-patch table up to the
///             table's bound (ALVORKIT_INTERCEPTION_MAX_PATCHES) and one more.
/// </summary>
public static class ScaleProof
{
    private const ulong Owner = 0x5CA1E;
    private const int Input = 5;

    private static readonly Func<int, int>[] Calls = [.. Enumerable.Range(0, ScaleTargets.Count)
        .Select(i => Target(i).CreateDelegate<Func<int, int>>())];

    private static MethodInfo Target(int i) => Patcher.Method(typeof(ScaleTargets), $"T{i:D4}");

    private static MethodInfo Replacement(string name) => Patcher.Method(typeof(ScaleReplacements), name);

    private static ScaleCounts Counts(ProfilerLibrary library)
    {
        library.GetRuntimeStatus(out AlvkRuntimeStatus s);
        return new ScaleCounts(s.PatchCapacity, s.PatchSlotsAllocated, s.LivePatches);
    }

    // The targets (from..to) whose value is not `expected(i)`, as "T0007=12".
    private static List<string> Wrong(int from, int to, Func<int, int> expected) =>
        [.. Enumerable.Range(from, to - from).Where(i => Calls[i](Input) != expected(i)).Select(i => $"T{i:D4}={Calls[i](Input)}")];

    private static Dictionary<string, int> States(ProfilerLibrary library, IEnumerable<ulong> handles) =>
        handles.Select(h => library.PatchGetTelemetry(h, out AlvkPatchTelemetry t) == AlvkStatus.Ok ? t.State.ToString() : "gone")
            .GroupBy(s => s).ToDictionary(g => g.Key, g => g.Count());

    private static void Warm(int count)
    {
        for (int round = 0; round < 3; round++)
            for (int i = 0; i < count; i++)
                Calls[i](Input);
    }

    public static ScaleBatchReport Batch()
    {
        using var interceptor = Interceptor.Open();
        ProfilerLibrary library = new Patcher().Library;
        int n = ScaleTargets.Count;
        Warm(n);
        MethodInfo patched = Replacement(nameof(ScaleReplacements.Patched));
        var pairs = Enumerable.Range(0, n).Select(i => ((MethodBase)Target(i), patched)).ToList();
        using var owner = new PatchOwner("scale");
        var clock = Stopwatch.StartNew();
        IReadOnlyList<Patch> patches;
        string outcome = "Ok";
        try
        {
            patches = interceptor.InstallMany(pairs, owner);
        }
        catch (InterceptionException e)
        {
            patches = [];
            outcome = $"{e.GetType().Name}: {e.Message}";
        }
        double installMs = clock.Elapsed.TotalMilliseconds;
        List<ulong> handles = [.. patches.Select(p => p.Native.Handle)];
        List<string> patchedWrong = Wrong(0, n, _ => Input + 1_000_000);
        var states = States(library, handles);
        ScaleCounts active = Counts(library);
        string removal = "Ok";
        try
        {
            owner.Dispose();
        }
        catch (InterceptionException e)
        {
            removal = $"{e.GetType().Name}: {e.Message}";
        }
        List<string> originalWrong = Wrong(0, n, i => Input + i);
        return new ScaleBatchReport(n, outcome, installMs, patches.Count, handles.Distinct().Count(), states,
            patchedWrong.Count, [.. patchedWrong.Take(5)], active, removal, originalWrong.Count, [.. originalWrong.Take(5)],
            States(library, handles), Counts(library));
    }

    public static ScaleRefusedReport Refused()
    {
        using var interceptor = Interceptor.Open();
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        const int n = 10;
        Warm(n);
        MethodInfo patched = Replacement(nameof(ScaleReplacements.Patched));
        List<(MethodBase, MethodInfo)> Pairs() => [.. Enumerable.Range(0, n).Select(i => ((MethodBase)Target(i), patched))];

        List<(MethodBase, MethodInfo)> mismatch = Pairs();
        mismatch[4] = (Target(4), Replacement(nameof(ScaleReplacements.Mismatched)));
        List<(MethodBase, MethodInfo)> duplicate = Pairs();
        duplicate[7] = (Target(2), patched);
        ManagedBatchRefusal Managed(List<(MethodBase, MethodInfo)> pairs)
        {
            try
            {
                interceptor.InstallMany(pairs);
                return new ManagedBatchRefusal("none", null, 0, [], [], "", Counts(library), Wrong(0, n, i => Input + i).Count);
            }
            catch (BatchInstallException e)
            {
                return new ManagedBatchRefusal(nameof(BatchInstallException), e.Status?.ToString(), e.Count,
                    [.. e.Refusals.Select(r => r.Index)], [.. e.Refusals.Select(r => r.Reason.GetType().Name)], e.Message,
                    Counts(library), Wrong(0, n, i => Input + i).Count);
            }
        }

        return new ScaleRefusedReport(Managed(mismatch), Managed(duplicate), Worker(patcher, n, patched),
            BadInputs(patcher, n, patched), Wrong(0, n, i => Input + i).Count);
    }

    private static AlvkInstallRequest[] Requests(Patcher patcher, int n, MethodInfo replacement) =>
        [.. Enumerable.Range(0, n).Select(i => patcher.Request(Target(i), replacement, Owner))];

    // Request 6's body identity is wrong: the worker finds it against the loaded method, and
    // publishes nothing of the batch.
    private static unsafe WorkerBatchRefusal Worker(Patcher patcher, int n, MethodInfo replacement)
    {
        ProfilerLibrary library = patcher.Library;
        AlvkInstallRequest[] requests = Requests(patcher, n, replacement);
        requests[6].BodyIdentity[0] ^= 0xFF;
        var handles = new ulong[n];
        var statuses = new AlvkStatus[n];
        AlvkStatus call = library.PatchInstallBatch(requests, handles, statuses);
        ulong command = library.LastCommand();
        AlvkStatus wait = library.CommandWait(command, Patcher.WaitMs, out AlvkStatus result);
        var states = new List<string>();
        var last = new List<string>();
        uint callbacks = 0;
        foreach (ulong h in handles)
        {
            library.PatchWait(h, Patcher.WaitMs);
            library.PatchGetTelemetry(h, out AlvkPatchTelemetry t);
            states.Add(t.State.ToString());
            last.Add(t.LastStatus.ToString());
            callbacks += t.GetReJITParameters;
        }
        return new WorkerBatchRefusal(call.ToString(), $"{wait}/{result}", states, last, callbacks, Counts(library),
            Wrong(0, n, i => Input + i).Count);
    }

    private static unsafe Dictionary<string, BatchBadInput> BadInputs(Patcher patcher, int n, MethodInfo replacement)
    {
        ProfilerLibrary library = patcher.Library;
        var results = new Dictionary<string, BatchBadInput>();
        void Case(string name, AlvkInstallRequest[] requests, uint count, bool nullRequests = false, bool nullHandles = false,
            bool nullStatuses = false)
        {
            ScaleCounts before = Counts(library);
            var handles = new ulong[Math.Max(1, requests.Length)];
            var statuses = new AlvkStatus[Math.Max(1, requests.Length)];
            Array.Fill(statuses, (AlvkStatus)(-1));
            AlvkStatus call;
            fixed (AlvkInstallRequest* r = requests)
            fixed (ulong* h = handles)
            fixed (AlvkStatus* s = statuses)
                call = library.PatchInstallBatchRaw(nullRequests ? null : r, count, nullHandles ? null : h,
                    nullStatuses ? null : s);
            results[name] = new BatchBadInput(call.ToString(),
                StatusNames(statuses),
                library.LastCommand(), before, Counts(library));
        }
        AlvkInstallRequest[] good = Requests(patcher, n, replacement);
        Case("countZero", good, 0);
        var many = new AlvkInstallRequest[AlvkConstants.MaxBatchRequests + 1];
        for (int i = 0; i < many.Length; i++)
            many[i] = good[i % n];
        Case("countAboveBound", many, (uint)many.Length);
        Case("nullRequests", good, (uint)n, nullRequests: true);
        Case("nullHandles", good, (uint)n, nullHandles: true);
        Case("nullStatuses", good, (uint)n, nullStatuses: true);
        AlvkInstallRequest[] stride = Requests(patcher, n, replacement);
        stride[3].Size -= 8;
        Case("strideMismatch", stride, (uint)n);
        AlvkInstallRequest[] small = Requests(patcher, n, replacement);
        foreach (ref AlvkInstallRequest r in small.AsSpan())
            r.Size = 16;
        Case("smallStruct", small, (uint)n);
        AlvkInstallRequest[] twice = Requests(patcher, n, replacement);
        twice[7] = twice[2];
        twice[7].Owner = Owner + 1;
        Case("duplicateTarget", twice, (uint)n);
        AlvkInstallRequest[] ownerZero = Requests(patcher, n, replacement);
        ownerZero[5].Owner = 0;
        Case("ownerZero", ownerZero, (uint)n);
        AlvkInstallRequest[] mixed = Requests(patcher, n, replacement);
        mixed[4].Flags |= (uint)AlvkInstallFlags.InlinerFallback;
        mixed[6].Flags |= (uint)AlvkInstallFlags.InlinerFallback;
        Case("mixedFallback", mixed, (uint)n);
        results["oddStride"] = OddStride(library, Requests(patcher, n, replacement));
        return results;
    }

    // The requests laid out 4 bytes apart more than their size (a stride that leaves every
    // other request misaligned), request 2's size one short: refused at request 2.
    private static unsafe BatchBadInput OddStride(ProfilerLibrary library, AlvkInstallRequest[] requests)
    {
        ScaleCounts before = Counts(library);
        int stride = sizeof(AlvkInstallRequest) + 4;
        byte[] buffer = new byte[(stride * requests.Length) + 8];
        var handles = new ulong[requests.Length];
        var statuses = new AlvkStatus[requests.Length];
        Array.Fill(statuses, (AlvkStatus)(-1));
        AlvkStatus call;
        fixed (byte* b = buffer)
        fixed (ulong* h = handles)
        fixed (AlvkStatus* s = statuses)
        {
            for (int i = 0; i < requests.Length; i++)
            {
                AlvkInstallRequest r = requests[i];
                r.Size = (uint)(i == 2 ? stride - 1 : stride);
                Unsafe.WriteUnaligned(b + (i * stride), r);
            }
            call = library.PatchInstallBatchRaw((AlvkInstallRequest*)b, (uint)requests.Length, h, s);
        }
        return new BatchBadInput(call.ToString(),
            StatusNames(statuses),
            library.LastCommand(), before, Counts(library));
    }

    // Every entry of the statuses array, as the call left it: one the profiler did not write
    // (still -1) is "untouched", whatever the count said.
    private static List<string> StatusNames(AlvkStatus[] statuses) =>
        [.. statuses.Select(s => s == (AlvkStatus)(-1) ? "untouched" : s.ToString())];

    public static ScaleBoundReport Bound()
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        ScaleCounts before = Counts(library);
        // Every target (past the old fixed table of 256) or, when the bound is below that, one
        // past the bound.
        int attempted = (int)Math.Min(ScaleTargets.Count, before.Capacity + 1);
        Warm(attempted);
        MethodInfo patched = Replacement(nameof(ScaleReplacements.Patched));
        var handles = new List<ulong>();
        int firstRefused = -1;
        string firstRefusal = "none";
        for (int i = 0; i < attempted; i++)
        {
            AlvkStatus sync = library.PatchInstall(patcher.Request(Target(i), patched, Owner), out ulong h);
            AlvkStatus wait = sync == AlvkStatus.Ok ? library.PatchWait(h, Patcher.WaitMs) : sync;
            if (sync == AlvkStatus.Ok && wait == AlvkStatus.Ok)
                handles.Add(h);
            else if (firstRefused < 0)
                (firstRefused, firstRefusal) = (i, $"{sync}/{wait}");
        }
        ScaleCounts atEnd = Counts(library);
        int patchedWrong = Wrong(0, handles.Count, _ => Input + 1_000_000).Count;
        var removals = handles.Select(h => library.PatchRemove(h, Owner) is var s && s == AlvkStatus.Ok
            ? library.PatchWait(h, Patcher.WaitMs) : s).GroupBy(s => s.ToString()).ToDictionary(g => g.Key, g => g.Count());
        return new ScaleBoundReport(before, attempted, handles.Count, firstRefused, firstRefusal, atEnd, patchedWrong,
            string.Join(",", removals.Select(kv => $"{kv.Key}:{kv.Value}")), Counts(library),
            Wrong(0, attempted, i => Input + i).Count);
    }
}
