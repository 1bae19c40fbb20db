using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// alvk_describe_method in a profiled process: the module catalog finds the host's module by
/// MVID, and the native signature hash and loaded-body identity equal what
/// System.Reflection.Metadata computes from the assembly file; bad input gets its status.
/// </summary>
[Trait("Feature", "Launch and loading")]
public sealed class MethodDescriptionProofs
{
    private static readonly Lazy<DescribeReport> Report = new(() =>
    {
        ProcessResult run = ProfiledProcess.Run(
            ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host"), "describe");
        Assert.True(run.ExitCode == 0, run.ToString());
        return run.Report<DescribeReport>();
    });

    private static DescribedMethod Method(string name) => Report.Value.Methods[name];

    [Theory]
    [InlineData("DescribeTargets.Add", "None", 2)]
    [InlineData("DescribeTargets.Instance", "HasThis", 2)]
    [InlineData("DescribeTargets.WithFinally", "None", 1)]
    [InlineData("DescribeTargets.Identity", "Generic", 1)]
    [InlineData("DescribeStruct.Twice", "HasThis, ValueTypeReceiver", 0)]
    [InlineData("DescribeGeneric`1.Get", "HasThis, DeclaringTypeGeneric", 0)]
    public void NativeDescriptionMatchesTheAssemblyFile(string name, string flags, int paramCount)
    {
        DescribedMethod m = Method(name);
        Assert.Equal("Ok", m.Status);
        Assert.True(m.MvidMatches);
        NativeDescription native = Assert.IsType<NativeDescription>(m.Native);
        // Every fact, the body's among them: the file's (expected) and the profiler's (actual).
        Assert.NotNull(m.Expected.BodyIdentity);
        Assert.Equal(m.Expected, native.Facts);
        Assert.Equal(flags, native.Flags);
        Assert.Equal((uint)paramCount, native.ParamCount);
        Assert.True(native.Epoch > 0);
    }

    [Fact]
    public void ExceptionClausesAreInsideTheBodyIdentity()
    {
        MethodFacts native = Assert.IsType<NativeDescription>(Method("DescribeTargets.WithFinally").Native).Facts;
        Assert.Equal(1u, native.EhClauses);
        Assert.True(native.BodySize > 12 + native.CodeSize, $"{native}");
    }

    [Theory]
    [InlineData("DescribeTargets.Abstract")]
    [InlineData("DescribeTargets.Extern")]
    [InlineData("DescribeTargets.InternalCall")]
    public void MethodsWithoutIlAreRefused(string name) =>
        Assert.Equal("MethodHasNoIL", Method(name).Status);

    [Theory]
    [InlineData("unknownMvid", "UnknownModule")]
    [InlineData("moduleNotAllowed", "ModuleNotAllowed")]
    [InlineData("typeDefToken", "TokenNotMethodDef")]
    [InlineData("ridZero", "TokenOutOfRange")]
    [InlineData("ridOutOfRange", "TokenOutOfRange")]
    [InlineData("nullMvid", "NullArgument")]
    [InlineData("nullOut", "NullArgument")]
    [InlineData("smallStruct", "StructSize")]
    public void BadInputGetsItsStatus(string input, string status) =>
        Assert.Equal(status, Report.Value.Refusals[input]);

    [Fact]
    public void CommandsRanOnTheWorkerAndLeftTheQueueEmpty()
    {
        // 9 method descriptions and the 5 refusals that need the catalog ran on the worker
        // (null and struct-size refusals are decided at the ABI, before any queueing).
        Assert.Equal(14ul, Report.Value.CommandsCompleted);
        Assert.Equal(0u, Report.Value.QueueDepth);
        Assert.Equal(42, Report.Value.AddStillWorks);
    }

    [Fact]
    public void DescribeIsRefusedWhenPatchingIsOff()
    {
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(null), "describe");
        DescribeReport report = run.Report<DescribeReport>();
        Assert.Equal("NoPatchableModules", report.Methods["DescribeTargets.Add"].Status);
        Assert.Equal(0ul, report.CommandsCompleted);
    }
}
