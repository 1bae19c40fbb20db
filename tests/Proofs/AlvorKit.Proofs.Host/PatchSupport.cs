using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using AlvorKit.Interception;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>What the patch modes share: requests built from alvk_describe_method, entry
/// points, telemetry and generation results as report records, and polling a target until a
/// behaviour shows.</summary>
internal sealed class Patcher
{
    public const uint WaitMs = 10_000;
    public static readonly TimeSpan PollLimit = TimeSpan.FromSeconds(2);

    public ProfilerLibrary Library { get; } = ProfilerLibrary.Open();

    /// <summary>A request for `target`, with the hashes the profiler reports for it.</summary>
    public AlvkInstallRequest Request(MethodInfo target, MethodInfo replacement, ulong owner,
        AlvkInstallFlags flags = AlvkInstallFlags.None) =>
        AlvkInstallRequest.For(Describe(target), EntryPoint(replacement), owner, flags);

    /// <summary>`request` with its replacement named as a method (ABI 3.4), for the direct call: the
    /// replacement's module copy (alvk_module_identify, probed with `probe`, a non-generic method of
    /// the module, or the replacement itself) and its MethodDef token.</summary>
    public AlvkInstallRequest NameReplacement(AlvkInstallRequest request, MethodInfo replacement,
        MethodInfo? probe = null)
    {
        probe ??= replacement;
        AlvkStatus status = Library.ModuleIdentify(probe.Module.ModuleVersionId, probe.MetadataToken,
            probe.MethodHandle.Value, out AlvkModuleInfo module);
        if (status != AlvkStatus.Ok)
            throw new InvalidOperationException($"alvk_module_identify({probe.Name}) returned {status}");
        request.ReplacementModuleId = module.ModuleId;
        request.ReplacementToken = unchecked((uint)replacement.MetadataToken);
        return request;
    }

    /// <summary>What alvk_describe_method reports for `target` (its hashes among it).</summary>
    public AlvkMethodDescription Describe(MethodBase target)
    {
        AlvkStatus status = Library.DescribeMethod(target.Module.ModuleVersionId, target.MetadataToken,
            out AlvkMethodDescription description);
        if (status != AlvkStatus.Ok)
            throw new InvalidOperationException($"alvk_describe_method({target.Name}) returned {status}");
        return description;
    }

    /// <summary>A request whose hashes come from the assembly file (for methods the
    /// profiler will not describe: no IL, or a module outside the allowlist).</summary>
    public static unsafe AlvkInstallRequest RequestFromFile(MethodBase target, IntPtr replacement, ulong owner)
    {
        AlvkInstallRequest request = default;
        request.Size = (uint)sizeof(AlvkInstallRequest);
        request.MethodToken = unchecked((uint)target.MetadataToken);
        request.ModuleMvid = AlvkMvid.From(target.Module.ModuleVersionId);
        using var pe = new PEReader(File.OpenRead(target.Module.Assembly.Location));
        MetadataReader md = pe.GetMetadataReader();
        MethodDefinition def = md.GetMethodDefinition((MethodDefinitionHandle)MetadataTokens.Handle(target.MetadataToken));
        SHA256.HashData(md.GetBlobBytes(def.Signature)).CopyTo(new Span<byte>(request.SignatureHash, 32));
        if (def.RelativeVirtualAddress != 0)
        {
            int size = pe.GetMethodBody(def.RelativeVirtualAddress).Size;
            byte[] body = pe.GetSectionData(def.RelativeVirtualAddress).GetContent(0, size).ToArray();
            SHA256.HashData(body).CopyTo(new Span<byte>(request.BodyIdentity, 32));
        }
        request.Replacement = (ulong)replacement;
        request.Owner = owner;
        return request;
    }

    /// <summary>The replacement's entry point, compiled first.</summary>
    public static IntPtr EntryPoint(MethodInfo replacement)
    {
        RuntimeHelpers.PrepareMethod(replacement.MethodHandle);
        return replacement.MethodHandle.GetFunctionPointer();
    }

    public static MethodInfo Method(Type type, string name) =>
        type.GetMethod(name, BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static | BindingFlags.Instance)
        ?? throw new MissingMethodException(type.Name, name);

    /// <summary>alvk_patch_get_telemetry as a record (its values all zero when the call failed).</summary>
    public TelemetryReport ReadTelemetry(ulong handle)
    {
        AlvkStatus rc = Library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t);
        if (rc != AlvkStatus.Ok)
            t = default;
        return new TelemetryReport(rc.ToString(), t.State.ToString(), t.LastStatus.ToString(), t.PendingCommands,
            t.CommandsCompleted, t.OwnerCount, (uint)t.Flags, t.ModuleEpoch, t.MethodToken, t.CalliSignatureToken,
            t.GetReJITParameters, t.ReJITStarted, t.ReJITFinished, t.ReJITErrors, t.InlinersReJITted,
            t.RequestHResult, t.SetILHResult, t.CompilationHResult, t.ErrorHResult, t.MetadataHResult,
            t.Replacement, t.CommandElapsedNs, t.CompileElapsedNs, t.DispatchPath.ToString(),
            t.DispatchFallback.ToString(), t.CallToken);
    }

    /// <summary>alvk_generation_get_result as a record, with every relocation result.</summary>
    public GenerationResultReport ReadGenerationResult(ulong handle, ulong id)
    {
        Span<AlvkRelocationResult> relocations = stackalloc AlvkRelocationResult[(int)AlvkConstants.MaxRelocations];
        AlvkStatus rc = Library.GenerationGetResult(handle, id, out AlvkGenerationResult result, relocations);
        if (rc != AlvkStatus.Ok)
            result = default;
        var list = new List<RelocationResultReport>();
        for (int i = 0; i < Math.Min((int)result.RelocationCount, relocations.Length); i++)
        {
            AlvkRelocationResult r = relocations[i];
            list.Add(new RelocationResultReport(r.Size, r.Kind.ToString(), r.Token, r.Token >> 24, r.Reused, r.HResult));
        }
        return new GenerationResultReport(rc.ToString(), result.State.ToString(), result.Status.ToString(),
            result.RelocationCount, result.Generation, result.PriorGeneration, result.FailingIndex, result.MetadataHResult,
            result.ILMapHResult, result.CompilationHResult, result.ElapsedNs, result.TypeErrorOffset,
            ((AlvkStackType)(int)result.TypeFound).ToString(), ((AlvkStackType)(int)result.TypeExpected).ToString(), list);
    }

    /// <summary>ReadGenerationResult once the generation left Pending and Requested (compiled,
    /// failed or refused), or PollLimit passed.</summary>
    public GenerationResultReport SettleGeneration(ulong handle, ulong id)
    {
        var clock = Stopwatch.StartNew();
        GenerationResultReport result;
        while ((result = ReadGenerationResult(handle, id)).Call == "Ok" &&
               result.State is nameof(AlvkGenerationState.Pending) or nameof(AlvkGenerationState.Requested) &&
               clock.Elapsed < PollLimit)
            Thread.Sleep(10);
        return result;
    }

    /// <summary>Calls `call` four times (so the target was JIT-compiled before a patch) and
    /// returns the last result.</summary>
    public static T Warm<T>(Func<T> call)
    {
        T last = call();
        for (int i = 0; i < 3; i++)
            last = call();
        return last;
    }

    /// <summary>What `call` returned (invariant text), or the name of the exception it threw.</summary>
    public static string Outcome<T>(Func<T> call)
    {
        try
        {
            return Convert.ToString(call(), CultureInfo.InvariantCulture) ?? "null";
        }
        catch (Exception e)
        {
            return e.GetType().Name;
        }
    }

    /// <summary>A generation result of the managed API as a report record.</summary>
    public static ApiGeneration? Report(GenerationInfo? g) =>
        g is null
            ? null
            : new ApiGeneration(g.Id, g.PriorId, g.State.ToString(), g.StatusName, g.CompilationHResult,
                [.. g.Relocations.Select(r => new ApiRelocation(r.Kind.ToString(), (uint)r.Token >> 24, r.Reused, r.HResult,
                    r.Description))]);

    /// <summary>Calls `call` until it returns `expected` or PollLimit (or `limit`) passes.</summary>
    public static Polled<T> PollFor<T>(Func<T> call, T expected, TimeSpan? limit = null)
    {
        var clock = Stopwatch.StartNew();
        int calls = 0;
        T last;
        do
        {
            last = call();
            calls++;
        } while (!EqualityComparer<T>.Default.Equals(last, expected) && clock.Elapsed < (limit ?? PollLimit));
        return new Polled<T>(expected, last, calls, EqualityComparer<T>.Default.Equals(last, expected));
    }

    /// <summary>Calls `call` for `window` and requires every call to return `expected`: what a
    /// command that must change nothing leaves. Actual is the first other value, if any.</summary>
    public static Polled<T> Steady<T>(Func<T> call, T expected, TimeSpan window)
    {
        var clock = Stopwatch.StartNew();
        int calls = 0;
        do
        {
            T value = call();
            calls++;
            if (!EqualityComparer<T>.Default.Equals(value, expected))
                return new Polled<T>(expected, value, calls, false);
        } while (clock.Elapsed < window);
        return new Polled<T>(expected, expected, calls, true);
    }

    /// <summary>Steady for several calls at once: each called in turn, round after round, for
    /// `window`, and each required to return its `expected` on every call. Every call is watched
    /// over the whole window (not one after the other, each for a window of its own: the same
    /// check, in one window's time and CPU). Actual is each one's first other value, if any.</summary>
    public static Polled<T>[] SteadyAll<T>(IReadOnlyList<Func<T>> calls, IReadOnlyList<T> expected, TimeSpan window)
    {
        var clock = Stopwatch.StartNew();
        var counts = new int[calls.Count];
        var failed = new T?[calls.Count];
        var ok = new bool[calls.Count];
        Array.Fill(ok, true);
        do
        {
            for (int i = 0; i < calls.Count; i++)
            {
                if (!ok[i])
                    continue;
                T value = calls[i]();
                counts[i]++;
                if (!EqualityComparer<T>.Default.Equals(value, expected[i]))
                {
                    ok[i] = false;
                    failed[i] = value;
                }
            }
        } while (clock.Elapsed < window);
        return [.. Enumerable.Range(0, calls.Count).Select(i =>
            new Polled<T>(expected[i], ok[i] ? expected[i] : failed[i]!, counts[i], ok[i]))];
    }

    /// <summary>One command's synchronous status and, when the call accepted it, the status
    /// alvk_patch_wait gave.</summary>
    public CommandOutcome Finish(AlvkStatus sync, ulong handle) =>
        new(sync.ToString(), sync == AlvkStatus.Ok ? Library.PatchWait(handle, WaitMs).ToString() : null);
}
