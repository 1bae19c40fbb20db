using System.Collections.Concurrent;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The patch modes of the proof host, launched once per (mode, tiering) and cached: every
/// patch proof runs under default tiering with PGO and with tiered compilation off.
/// </summary>
public static class PatchReports
{
    public const string TieredPgo = "TieredPGO";
    public const string TieringOff = "TieredCompilationOff";

    public static readonly string[] Tierings = [TieredPgo, TieringOff];

    /// <summary>Theory data: the two tiering modes.</summary>
    public static TheoryData<string> TieringModes => new(Tierings);

    /// <summary>Theory data: each case with each tiering mode.</summary>
    public static TheoryData<string, string> WithTierings(IEnumerable<string> cases)
    {
        var data = new TheoryData<string, string>();
        foreach (string c in cases)
            foreach (string tiering in Tierings)
                data.Add(c, tiering);
        return data;
    }

    private static readonly ConcurrentDictionary<string, Lazy<ProcessResult>> Runs = new();

    /// <summary>The DOTNET_* settings of a tiering mode.</summary>
    public static IReadOnlyDictionary<string, string?> Tiering(string mode) => mode switch
    {
        TieredPgo => new Dictionary<string, string?> { ["DOTNET_TieredPGO"] = "1" },
        TieringOff => new Dictionary<string, string?> { ["DOTNET_TieredCompilation"] = "0" },
        _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, "not a tiering mode"),
    };

    /// <summary>The host's report for `args` under `tiering`, from its one launch, read as a `T`.</summary>
    public static T Get<T>(string tiering, params string[] args) => Launch(tiering, args).Report<T>();

    private static ProcessResult Launch(string tiering, string[] args)
    {
        ProcessResult run = Runs.GetOrAdd($"{tiering} {string.Join(' ', args)}", _ => new Lazy<ProcessResult>(() =>
            // The stress mode bounds itself at about 60 s; the rest take a second or two.
            ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host"),
                Tiering(tiering), TimeSpan.FromSeconds(120), args))).Value;
        Assert.True(run.ExitCode == 0, run.ToString());
        return run;
    }

    /// <summary>Asserts a command was accepted at the call and finished with `wait`.</summary>
    public static void AssertCommand(CommandOutcome step, string wait = "Ok")
    {
        Assert.True(step.Sync == "Ok", $"sync status in {step}");
        Assert.True(step.Wait == wait, $"wait status in {step}");
    }

    /// <summary>Asserts a poll reached `expected` on the first call after the wait.</summary>
    public static void AssertVisibleAtOnce<T>(Polled<T> poll, T expected)
    {
        Assert.True(EqualityComparer<T>.Default.Equals(poll.Actual, expected), $"expected {expected}: {poll}");
        Assert.True(poll.Calls == 1, $"visible only after several calls: {poll}");
    }

    /// <summary>Telemetry checks every successful ReJIT step must pass. `inlined`: a target its
    /// callers inlined, whose own ReJIT compilation may never come (each known inliner is
    /// re-JIT'd calling a carrier of its body, and nothing calls the target itself): then the
    /// inliners' re-JIT, counted, is what put the body in force.</summary>
    public static void AssertHealthyTelemetry(TelemetryReport telemetry, string state, bool inlined = false)
    {
        Assert.True(telemetry.Call == "Ok", $"{telemetry}");
        Assert.True(telemetry.State == state, $"state {state}: {telemetry}");
        Assert.True(telemetry.LastStatus == "Ok", $"lastStatus: {telemetry}");
        Assert.True(telemetry.PendingCommands == 0, $"pendingCommands: {telemetry}");
        bool carried = inlined && telemetry.RejitStarted == 0;
        if (carried)
            Assert.True(telemetry.InlinersRejitted >= 1 && telemetry.GetReJITParameters == 0 && telemetry.RejitFinished == 0,
                $"no compilation of the target itself, so its inliners carried it: {telemetry}");
        else
        {
            Assert.True(telemetry.GetReJITParameters >= 1, $"getReJITParameters: {telemetry}");
            Assert.True(telemetry.RejitStarted >= 1, $"rejitStarted: {telemetry}");
            Assert.True(telemetry.RejitFinished >= 1, $"rejitFinished: {telemetry}");
        }
        Assert.True(telemetry.RejitErrors == 0, $"rejitErrors: {telemetry}");
        foreach ((string name, int hr) in new[]
        {
            ("requestHResult", telemetry.RequestHResult), ("setILHResult", telemetry.SetILHResult),
            ("compilationHResult", telemetry.CompilationHResult), ("errorHResult", telemetry.ErrorHResult),
            ("metadataHResult", telemetry.MetadataHResult),
        })
            Assert.True(hr == 0, $"{name}: {telemetry}");
        if (telemetry.DispatchPath == "DirectCall")
            Assert.True(telemetry.CallToken >> 24 is 0x06 or 0x0A, $"callToken is no MethodDef or MemberRef: {telemetry}");
        else
            Assert.True(telemetry.CalliSignatureToken >> 24 == 0x11, $"calliSignatureToken is not a StandAloneSig: {telemetry}");
        Assert.True(telemetry.MethodToken >> 24 == 0x06, $"methodToken: {telemetry}");
        Assert.True(telemetry.ModuleEpoch > 0, $"moduleEpoch: {telemetry}");
        Assert.True(telemetry.CommandElapsedNs > 0, $"commandElapsedNs: {telemetry}");
        Assert.True(carried || telemetry.CompileElapsedNs > 0, $"compileElapsedNs: {telemetry}");
    }
}
