using System.Buffers.Binary;
using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using AlvorKit.Interception.Plans;
using Xunit;

namespace AlvorKit.Hooks.Tests;

#pragma warning disable IDE0060, CA1707 // hook parameters are bound by name, not used

/// <summary>A target with 33 parameters of mixed kinds, some by reference.</summary>
public static class ManyParameters
{
    public static long ThirtyThree(
        int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7,
        long b0, long b1, long b2, long b3,
        double c0, double c1, double c2, double c3,
        string s0, string s1, string s2, string s3,
        object o0, object o1,
        bool f0, bool f1,
        Pair<int> p0, Pair<int> p1,
        DayOfWeek e0,
        decimal m0,
        byte y0, short h0,
        ref int r0, ref string r1, ref long r2) => a0 + b0 + r0;

    public static void ArgsPrefix(object[] __args)
    {
    }
}

/// <summary>Identical references share one relocation with many operand sites (no runtime).</summary>
public sealed class RelocationSharingTests
{
    private static RelocationRequest String(string value) =>
        new(RelocationKind.UserString, System.Text.Encoding.Unicode.GetBytes(value), null, Parent.None, $"ldstr \"{value}\"");

    private static uint[] SitesOf(RelocationSpec spec, byte[] pool) =>
        [.. Enumerable.Range(0, (int)spec.SiteCount)
            .Select(j => BinaryPrimitives.ReadUInt32LittleEndian(pool.AsSpan((int)spec.SitesOffset + 4 * j, 4)))];

    [Fact]
    public void IdenticalReferencesShareOneRelocationWhoseLaterOperandsAreSites()
    {
        var table = new RelocationTable();
        table.AtOperand(String("a"), 1);
        table.AtOperand(String("b"), 7);
        table.AtOperand(String("a"), 13);
        table.AtOperand(String("a"), 19);
        (List<RelocationSpec> specs, byte[] pool) = table.Build(null);

        Assert.Equal(2, table.Count);
        Assert.Equal(2, table.SiteCount);
        Assert.Equal(2, specs.Count);
        Assert.Equal(1u, specs[0].ILOffset);
        Assert.Equal([13u, 19u], SitesOf(specs[0], pool));
        Assert.Equal(7u, specs[1].ILOffset);
        Assert.Equal(0u, specs[1].SiteCount);
    }

    [Fact]
    public void AParentOnlyReferenceTakesTheFirstOperandThenSites()
    {
        var table = new RelocationTable();
        int parent = table.Reference(String("p") with { Description = "parent" });
        Assert.Equal(parent, table.Reference(String("p")));
        table.AtOperand(String("p"), 5);
        table.AtOperand(String("p") with { Description = "second" }, 11);
        (List<RelocationSpec> specs, byte[] pool) = table.Build(null);

        RelocationSpec only = Assert.Single(specs);
        Assert.Equal(5u, only.ILOffset);
        Assert.Equal([11u], SitesOf(only, pool));
        // Described by its first operand's use, then the site's.
        Assert.Equal("ldstr \"p\"; second", only.Description);
    }

    [Fact]
    public void ShiftMovesSitesInTheCodeButNotCatchClauses()
    {
        var table = new RelocationTable();
        var type = new RelocationRequest(RelocationKind.TypeRef, null, "Other.Error", Parent.OfToken(0x2300_0001), "catch");
        table.AtOperand(type, RelocationTable.CatchType(0));
        table.AtOperand(type, 4);
        table.AtOperand(type, RelocationTable.CatchType(1));
        table.Shift(10);
        (List<RelocationSpec> specs, byte[] pool) = table.Build(null);

        RelocationSpec only = Assert.Single(specs);
        Assert.Equal(RelocationTable.CatchType(0), only.ILOffset);
        Assert.Equal([14u, RelocationTable.CatchType(1)], SitesOf(only, pool));
    }

    [Fact]
    public void TheLocalsSignatureIsNeverASite()
    {
        var table = new RelocationTable();
        var locals = new RelocationRequest(RelocationKind.StandAloneSignature, [0x07, 0x01, 0x08], null, Parent.None, "locals");
        table.AtOperand(locals, RelocationTable.LocalsSignature);
        table.AtOperand(locals, RelocationTable.LocalsSignature);
        Assert.Equal(2, table.Count);
        Assert.Equal(0, table.SiteCount);
    }

    [Fact]
    public void ArgsOnAThirtyThreeParameterMethodFitsOneGeneration()
    {
        MethodInfo target = typeof(ManyParameters).GetMethod(nameof(ManyParameters.ThirtyThree))!;
        BoundSet set = HookBinder.BindSet(target, [typeof(ManyParameters).GetMethod(nameof(ManyParameters.ArgsPrefix))!], [], []);
        GenerationPlan plan = HookWeaver.Weave(HookComposition.Compose(target, [new HookSetInfo(set, "mod", 0, "Hook call")]));
        LoweredGeneration lowered = plan.Lower();

        // Every argument is boxed into __args and unboxed back: one relocation per distinct
        // reference, the repeats as its sites.
        Assert.True(lowered.Relocations.Count <= 64, $"{lowered.Relocations.Count} relocations");
        Assert.Contains(lowered.Relocations, r => r.SiteCount > 0);
    }
}
