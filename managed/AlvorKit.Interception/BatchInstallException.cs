using System.Reflection;
using System.Text;

namespace AlvorKit.Interception;

/// <summary>One pair of an <see cref="Interceptor.InstallMany"/> batch (or one plan of an
/// <see cref="Interceptor.ApplyMany"/> batch) that was refused, and why.</summary>
/// <param name="Index">The pair's (or plan's) position in the batch.</param>
/// <param name="Target">The method that was to be patched.</param>
/// <param name="Replacement">Its replacement; null for a plan of <see cref="Interceptor.ApplyMany"/>
/// (whose reasons are also a <see cref="PlanException"/> or <see cref="StackTypeMismatchException"/>).</param>
/// <param name="Reason">Why: a <see cref="SignatureMismatchException"/>, a <see cref="NotSupportedException"/>
/// (a target exact dispatch cannot serve), an <see cref="ArgumentException"/> (a target named twice),
/// an <see cref="InvalidOperationException"/> (the owner already holds a patch on it), or a
/// <see cref="PatchException"/> with the profiler's status (<see cref="InterceptionStatus.BatchAborted"/>
/// for a pair that was fine but went down with the batch).</param>
public sealed record BatchRefusal(int Index, MethodBase Target, MethodInfo? Replacement, Exception Reason);

/// <summary>
/// <see cref="Interceptor.InstallMany"/> installed nothing: every pair that was refused is in
/// <see cref="Refusals"/>, and the message lists them one per line. <see cref="InterceptionException.Status"/>
/// is null when the library refused the pairs before anything reached the profiler, else the
/// profiler's answer for the batch (its first refusal).
/// </summary>
public sealed class BatchInstallException : InterceptionException
{
    internal BatchInstallException(IReadOnlyList<BatchRefusal> refusals, int count, InterceptionStatus? status,
        bool plans = false)
        : base(Describe(refusals, count, status, plans), status)
    {
        Refusals = refusals;
        Count = count;
    }

    /// <summary>The refused pairs, in batch order.</summary>
    public IReadOnlyList<BatchRefusal> Refusals { get; }

    /// <summary>How many pairs the batch had.</summary>
    public int Count { get; }

    private static string Describe(IReadOnlyList<BatchRefusal> refusals, int count, InterceptionStatus? status,
        bool plans)
    {
        var text = new StringBuilder();
        (string call, string items, string done) = plans ? ("ApplyMany", "plans", "applied") : ("InstallMany", "pairs", "installed");
        text.Append(status is null
            ? $"{call} refused {refusals.Count} of {count} {items} before anything reached the profiler; nothing was {done}:"
            : $"The profiler refused the batch of {count} {items} ({refusals.Count} listed); nothing was {done}:");
        foreach (BatchRefusal r in refusals)
            text.Append($"\n  [{r.Index}] {Internal.Names.Of(r.Target)}: {r.Reason.Message}");
        return text.ToString();
    }
}
