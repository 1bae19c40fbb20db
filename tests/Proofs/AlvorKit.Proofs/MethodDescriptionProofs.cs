using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// alvk_describe_method in a profiled process: the module catalog finds the host's module by
/// MVID, and the native signature hash and loaded-body identity equal what
/// System.Reflection.Metadata computes from the assembly file; bad input gets its status.
/// </summary>
public sealed class MethodDescriptionProofs
{
    private static readonly Lazy<JsonObject> Report = new(() =>
    {
        ProcessResult run = ProfiledProcess.Run(
            ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host"), "describe");
        Assert.True(run.ExitCode == 0, run.ToString());
        return run.Report;
    });

    private static JsonObject Method(string name) => Report.Value["methods"]![name]!.AsObject();

    [Theory]
    [InlineData("DescribeTargets.Add", "None", 2)]
    [InlineData("DescribeTargets.Instance", "HasThis", 2)]
    [InlineData("DescribeTargets.WithFinally", "None", 1)]
    [InlineData("DescribeTargets.Identity", "Generic", 1)]
    [InlineData("DescribeStruct.Twice", "HasThis, ValueTypeReceiver", 0)]
    [InlineData("DescribeGeneric`1.Get", "HasThis, DeclaringTypeGeneric", 0)]
    public void NativeDescriptionMatchesTheAssemblyFile(string name, string flags, int paramCount)
    {
        JsonObject m = Method(name);
        Assert.Equal("Ok", m["status"]!.GetValue<string>());
        Assert.True(m["mvidMatches"]!.GetValue<bool>());
        JsonObject native = m["native"]!.AsObject(), expected = m["expected"]!.AsObject();
        foreach (string field in new[] { "signatureLength", "signatureHash", "bodySize", "codeSize",
                     "maxStack", "ehClauses", "localSignature", "bodyIdentity" })
            Assert.True(JsonNode.DeepEquals(expected[field], native[field]),
                $"{name}.{field}: file says {expected[field]}, profiler says {native[field]}");
        Assert.Equal(flags, native["flags"]!.GetValue<string>());
        Assert.Equal(paramCount, native["paramCount"]!.GetValue<int>());
        Assert.True(native["epoch"]!.GetValue<uint>() > 0);
    }

    [Fact]
    public void ExceptionClausesAreInsideTheBodyIdentity()
    {
        JsonObject native = Method("DescribeTargets.WithFinally")["native"]!.AsObject();
        Assert.Equal(1, native["ehClauses"]!.GetValue<int>());
        Assert.True(native["bodySize"]!.GetValue<int>() > 12 + native["codeSize"]!.GetValue<int>());
    }

    [Theory]
    [InlineData("DescribeTargets.Abstract")]
    [InlineData("DescribeTargets.Extern")]
    [InlineData("DescribeTargets.InternalCall")]
    public void MethodsWithoutIlAreRefused(string name) =>
        Assert.Equal("MethodHasNoIL", Method(name)["status"]!.GetValue<string>());

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
        Assert.Equal(status, Report.Value["refusals"]![input]!.GetValue<string>());

    [Fact]
    public void CommandsRanOnTheWorkerAndLeftTheQueueEmpty()
    {
        // 9 method descriptions and the 5 refusals that need the catalog ran on the worker
        // (null and struct-size refusals are decided at the ABI, before any queueing).
        Assert.Equal(14ul, Report.Value["commandsCompleted"]!.GetValue<ulong>());
        Assert.Equal(0u, Report.Value["queueDepth"]!.GetValue<uint>());
        Assert.Equal(42, Report.Value["addStillWorks"]!.GetValue<int>());
    }

    [Fact]
    public void DescribeIsRefusedWhenPatchingIsOff()
    {
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(null), "describe");
        JsonNode methods = run.Report["methods"]!;
        Assert.Equal("NoPatchableModules", methods["DescribeTargets.Add"]!["status"]!.GetValue<string>());
        Assert.Equal(0ul, run.Report["commandsCompleted"]!.GetValue<ulong>());
    }
}
