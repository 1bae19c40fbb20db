using AlvorKit.Interception.HotReload;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>The user method a compiler-generated member belongs to, from its name alone.</summary>
public sealed class GeneratedRefusalTests
{
    [Theory]
    [InlineData("Game.Program+<>c.<Main>b__0_1()", "Game.Program.Main")]
    [InlineData("Game.Program+<>c.<Main>b__0_1(System.Func<int, int>)", "Game.Program.Main")]
    [InlineData("Game.Program+<Run>d__3.MoveNext()", "Game.Program.Run")]
    [InlineData("Game.Program+<Run>d__3.<x>5__2", "Game.Program.Run")]
    [InlineData("Game.Program+<>c__DisplayClass2_0.<Update>b__0(int)", "Game.Program.Update")]
    public void ANamedGeneratedMemberBelongsToItsMethod(string generated, string method) =>
        Assert.Equal(method, GeneratedRefusal.UserMethod(generated));

    [Theory]
    [InlineData("Game.Program+<>c.<>9__0_1")]
    [InlineData("Game.Program+<>c")]
    [InlineData("Game.Program.Run(System.Func<int, int>)")]
    public void ANameThatShowsNoMethodGivesNone(string generated) =>
        Assert.Null(GeneratedRefusal.UserMethod(generated));

    [Fact]
    public void TheRefusalNamesTheMethodAndKeepsTheGeneratedMember()
    {
        ReloadRefusal refusal = GeneratedRefusal.For(new MemberEdit(EditKind.MethodAdded, "Game.Program+<>c.<Main>b__0_1()", true));

        Assert.Equal(ReloadRefusalReason.GeneratedMemberDoesNotMap, refusal.Reason);
        Assert.Equal("Game.Program.Main", refusal.Member);
        Assert.StartsWith("GeneratedMemberDoesNotMap: Game.Program.Main (Game.Program+<>c.<Main>b__0_1()) — MethodAdded",
                          refusal.Message, StringComparison.Ordinal);
    }
}
