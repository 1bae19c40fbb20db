using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;

namespace AlvorKit.Proofs.Reports;

/// <summary>
/// The one serializer of the proof host's reports, compiled into the host (which writes them)
/// and the proofs (which read them). Generated at build time, so the host needs no reflection.
/// Reading is strict: a property the record does not have, a constructor parameter the JSON
/// lacks or a null where the record says non-null fails the read instead of giving a default.
/// </summary>
[JsonSourceGenerationOptions(
    PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase,
    RespectNullableAnnotations = true,
    RespectRequiredConstructorParameters = true,
    UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow)]
[JsonSerializable(typeof(StatusReport))]
[JsonSerializable(typeof(ModuleLoadOrderReport))]
[JsonSerializable(typeof(PlatformReport))]
[JsonSerializable(typeof(LifecycleReport))]
[JsonSerializable(typeof(InliningReport))]
[JsonSerializable(typeof(InlinerCountReport))]
[JsonSerializable(typeof(InlineSiteReport))]
[JsonSerializable(typeof(NestedRemovalReport))]
[JsonSerializable(typeof(RestoredCallerReport))]
[JsonSerializable(typeof(DispatchReport))]
[JsonSerializable(typeof(DispatchApiReport))]
[JsonSerializable(typeof(StressReport))]
[JsonSerializable(typeof(OwnersReport))]
[JsonSerializable(typeof(BadInputReport))]
[JsonSerializable(typeof(CommandsReport))]
[JsonSerializable(typeof(MemoryReport))]
[JsonSerializable(typeof(DescribeReport))]
[JsonSerializable(typeof(RecyclingReport))]
[JsonSerializable(typeof(ExitReport))]
[JsonSerializable(typeof(MixedStressReport))]
[JsonSerializable(typeof(QueueFullReport))]
[JsonSerializable(typeof(AllocationsReport))]
[JsonSerializable(typeof(SampledWindowsReport))]
[JsonSerializable(typeof(SampledCyclesReport))]
[JsonSerializable(typeof(SampledThreadsReport))]
[JsonSerializable(typeof(ExactProfilingReport))]
[JsonSerializable(typeof(ProfilingFlagReport))]
[JsonSerializable(typeof(PluginPatternReport))]
[JsonSerializable(typeof(CollectibleCopyReport))]
[JsonSerializable(typeof(ModulesRawReport))]
[JsonSerializable(typeof(ApiConcurrencyReport))]
[JsonSerializable(typeof(GenerationsReport))]
[JsonSerializable(typeof(MembersReport))]
[JsonSerializable(typeof(LiteralTypeReport))]
[JsonSerializable(typeof(AssemblyRefAndBatchReport))]
[JsonSerializable(typeof(ApiReport))]
[JsonSerializable(typeof(SubmitStormReport))]
[JsonSerializable(typeof(HotReloadCoreReport))]
[JsonSerializable(typeof(HotReloadScript))]
[JsonSerializable(typeof(DropFolderReport))]
[JsonSerializable(typeof(ScaleBatchReport))]
[JsonSerializable(typeof(ScaleRefusedReport))]
[JsonSerializable(typeof(ScaleBoundReport))]
[JsonSerializable(typeof(OriginalPlanReport))]
[JsonSerializable(typeof(HookReport))]
[JsonSerializable(typeof(RelocationReport))]
internal sealed partial class ReportJson : JsonSerializerContext
{
    /// <summary>The generated contract of report type `T`.</summary>
    public static JsonTypeInfo<T> Info<T>() =>
        Default.GetTypeInfo(typeof(T)) as JsonTypeInfo<T>
        ?? throw new InvalidOperationException($"{typeof(T).Name} is not a report type of {nameof(ReportJson)}");

    /// <summary>`report` as one line of JSON.</summary>
    public static string Write<T>(T report) => JsonSerializer.Serialize(report, Info<T>());

    /// <summary>`report` indented, for a person to read.</summary>
    public static string WriteIndented<T>(T report)
    {
        var indented = new ReportJson(new JsonSerializerOptions(Info<T>().Options) { WriteIndented = true, Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping });
        return JsonSerializer.Serialize(report, (JsonTypeInfo<T>)indented.GetTypeInfo(typeof(T))!);
    }
}
