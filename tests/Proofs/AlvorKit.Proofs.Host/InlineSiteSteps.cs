using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// What the inline-site modes (InlineSiteProof, InlineSiteFirstCallProof) do alike: a phase's mark
/// (one method per phase, compiled once at the phase's start: its listing cuts the JIT's output,
/// which it writes buffered, so only the finished file can be read), the wait until a caller's code
/// is final, the value a caller returns unpatched, and the carrier telemetry a phase reports.
/// </summary>
public static class InlineSiteSteps
{
    /// <summary>Calls of the target per call of a caller.</summary>
    public const int Calls = 100;

    private static readonly Func<int>[] Marks =
    [
        InlineSiteTargets.InlineSitePhase0, InlineSiteTargets.InlineSitePhase1, InlineSiteTargets.InlineSitePhase2,
        InlineSiteTargets.InlineSitePhase3, InlineSiteTargets.InlineSitePhase4, InlineSiteTargets.InlineSitePhase5,
        InlineSiteTargets.InlineSitePhase6, InlineSiteTargets.InlineSitePhase7, InlineSiteTargets.InlineSitePhase8,
        InlineSiteTargets.InlineSitePhase9, InlineSiteTargets.InlineSitePhase10, InlineSiteTargets.InlineSitePhase11,
    ];

    /// <summary>What a caller returns while its target is `x * 3 + 1` (or hooked without changing it).</summary>
    public static int Expected()
    {
        int expected = 0;
        for (int i = 0; i < Calls; i++)
            expected += i * 3 + 1;
        return expected;
    }

    /// <summary>The mark of phase `index` compiled (and called).</summary>
    public static void Mark(int index) => Marks[index]();

    /// <summary>Calls the caller in batches with pauses (tiering's call counting and background compiles)
    /// until the JIT's compile count stays the same over several batches: the caller's code is final. At
    /// least 2 s, at most 20 s.</summary>
    public static void Settle(Func<int, int> caller)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        long last = -1;
        int quiet = 0;
        while (clock.ElapsedMilliseconds < 20_000)
        {
            for (int i = 0; i < 50; i++)
                caller(Calls);
            Thread.Sleep(20);
            long compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
            quiet = compiled == last ? quiet + 1 : 0;
            last = compiled;
            if (quiet >= 10 && clock.ElapsedMilliseconds >= 2_000)
                return;
        }
    }

    /// <summary>The telemetry's carrier fields, or null when there was no patch to read.</summary>
    public static InlineSiteCarrier? Carrier(PatchTelemetry? telemetry) =>
        telemetry is null
            ? null
            : new InlineSiteCarrier(telemetry.CarrierState.ToString(), telemetry.CarrierToken, telemetry.CallersRedirected,
                telemetry.CallersDiscovered, telemetry.CallersKept);

    /// <summary>A public static method of `type`.</summary>
    public static MethodInfo Method(Type type, string name) =>
        type.GetMethod(name, BindingFlags.Public | BindingFlags.Static) ?? throw new MissingMethodException(type.Name, name);
}
