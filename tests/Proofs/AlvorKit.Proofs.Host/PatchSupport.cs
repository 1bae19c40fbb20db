using System.Diagnostics;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using System.Text.Json;
using System.Text.Json.Nodes;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>What the patch modes share: requests built from alvk_describe_method, entry
/// points, telemetry as JSON, and polling a target until a behaviour shows.</summary>
internal sealed class Patcher
{
    public const uint WaitMs = 10_000;
    public static readonly TimeSpan PollLimit = TimeSpan.FromSeconds(2);

    public ProfilerLibrary Library { get; } = ProfilerLibrary.Open();

    /// <summary>A request for `target`, with the hashes the profiler reports for it.</summary>
    public AlvkInstallRequest Request(MethodInfo target, MethodInfo replacement, ulong owner,
        AlvkInstallFlags flags = AlvkInstallFlags.None) =>
        AlvkInstallRequest.For(Describe(target), EntryPoint(replacement), owner, flags);

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

    public JsonObject Telemetry(ulong handle)
    {
        AlvkStatus rc = Library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t);
        var json = new JsonObject { ["call"] = rc.ToString() };
        if (rc != AlvkStatus.Ok)
            return json;
        json["state"] = t.State.ToString();
        json["lastStatus"] = t.LastStatus.ToString();
        json["pendingCommands"] = t.PendingCommands;
        json["commandsCompleted"] = t.CommandsCompleted;
        json["ownerCount"] = t.OwnerCount;
        json["flags"] = (uint)t.Flags;
        json["moduleEpoch"] = t.ModuleEpoch;
        json["methodToken"] = t.MethodToken;
        json["calliSignatureToken"] = t.CalliSignatureToken;
        json["getReJITParameters"] = t.GetReJITParameters;
        json["rejitStarted"] = t.ReJITStarted;
        json["rejitFinished"] = t.ReJITFinished;
        json["rejitErrors"] = t.ReJITErrors;
        json["inlinersRejitted"] = t.InlinersReJITted;
        json["requestHResult"] = t.RequestHResult;
        json["setILHResult"] = t.SetILHResult;
        json["compilationHResult"] = t.CompilationHResult;
        json["errorHResult"] = t.ErrorHResult;
        json["metadataHResult"] = t.MetadataHResult;
        json["replacement"] = t.Replacement;
        json["commandElapsedNs"] = t.CommandElapsedNs;
        json["compileElapsedNs"] = t.CompileElapsedNs;
        return json;
    }

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
            t.Replacement, t.CommandElapsedNs, t.CompileElapsedNs);
    }

    /// <summary>alvk_generation_get_result as JSON, with every relocation result.</summary>
    public JsonObject GenerationResult(ulong handle, ulong id) => GenerationResult(handle, id, out _);

    public JsonObject GenerationResult(ulong handle, ulong id, out AlvkGenerationResult result)
    {
        Span<AlvkRelocationResult> relocations = stackalloc AlvkRelocationResult[(int)AlvkConstants.MaxRelocations];
        AlvkStatus rc = Library.GenerationGetResult(handle, id, out result, relocations);
        var json = new JsonObject { ["call"] = rc.ToString() };
        if (rc != AlvkStatus.Ok)
            return json;
        json["state"] = result.State.ToString();
        json["status"] = result.Status.ToString();
        json["relocationCount"] = result.RelocationCount;
        json["generation"] = result.Generation;
        json["priorGeneration"] = result.PriorGeneration;
        json["failingIndex"] = result.FailingIndex;
        json["metadataHResult"] = result.MetadataHResult;
        json["ilMapHResult"] = result.ILMapHResult;
        json["compilationHResult"] = result.CompilationHResult;
        json["elapsedNs"] = result.ElapsedNs;
        json["typeErrorOffset"] = result.TypeErrorOffset;
        json["typeFound"] = ((AlvkStackType)(int)result.TypeFound).ToString();
        json["typeExpected"] = ((AlvkStackType)(int)result.TypeExpected).ToString();
        var list = new JsonArray();
        for (int i = 0; i < Math.Min((int)result.RelocationCount, relocations.Length); i++)
        {
            AlvkRelocationResult r = relocations[i];
            list.Add(new JsonObject
            {
                ["size"] = r.Size,
                ["kind"] = r.Kind.ToString(),
                ["token"] = r.Token,
                ["table"] = r.Token >> 24,
                ["reused"] = r.Reused,
                ["hresult"] = r.HResult,
            });
        }
        json["relocations"] = list;
        return json;
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

    /// <summary>GenerationResult once the generation left Pending and Requested (compiled,
    /// failed or refused), or PollLimit passed.</summary>
    public JsonObject SettledGeneration(ulong handle, ulong id)
    {
        var clock = Stopwatch.StartNew();
        JsonObject json;
        AlvkGenerationResult result;
        while ((json = GenerationResult(handle, id, out result))["call"]!.GetValue<string>() == "Ok" &&
               result.State is AlvkGenerationState.Pending or AlvkGenerationState.Requested && clock.Elapsed < PollLimit)
            Thread.Sleep(10);
        return json;
    }

    /// <summary>Calls `call` until it returns `expected` or PollLimit passes.</summary>
    public static JsonObject Poll<T>(Func<T> call, T expected) => Poll(call, expected, out _);

    /// <summary>Poll, also giving the last value `call` returned; `limit` replaces PollLimit.</summary>
    public static JsonObject Poll<T>(Func<T> call, T expected, out T last, TimeSpan? limit = null)
    {
        var clock = Stopwatch.StartNew();
        int calls = 0;
        do
        {
            last = call();
            calls++;
        } while (!EqualityComparer<T>.Default.Equals(last, expected) && clock.Elapsed < (limit ?? PollLimit));
        return new JsonObject
        {
            ["value"] = JsonSerializer.SerializeToNode(last),
            ["calls"] = calls,
            ["ok"] = EqualityComparer<T>.Default.Equals(last, expected),
        };
    }

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

    /// <summary>One command's synchronous status and, when the call accepted it, the status
    /// alvk_patch_wait gave.</summary>
    public CommandOutcome Finish(AlvkStatus sync, ulong handle) =>
        new(sync.ToString(), sync == AlvkStatus.Ok ? Library.PatchWait(handle, WaitMs).ToString() : null);

    /// <summary>One command's synchronous status and the status alvk_patch_wait gave.</summary>
    public JsonObject Command(AlvkStatus sync, ulong handle)
    {
        var json = new JsonObject { ["sync"] = sync.ToString() };
        if (sync == AlvkStatus.Ok)
            json["wait"] = Library.PatchWait(handle, WaitMs).ToString();
        return json;
    }
}
