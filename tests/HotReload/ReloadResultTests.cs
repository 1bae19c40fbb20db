using AlvorKit.Interception.HotReload;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>The summary a person watching reads: one line for the reload, then one per method or refusal.</summary>
public sealed class ReloadResultTests
{
    [Fact]
    public void AnAppliedReloadSaysHowManyMethodsAndHowLong()
    {
        var result = new ReloadResult("Game", "/drop/Game.dll", ReloadOutcome.Applied,
            [new MethodReload("Game.World.Update()", MethodReloadState.Applied, "IL_0004: ldc.i4.1 → ldc.i4.2"),
             new MethodReload("Game.World.Draw()", MethodReloadState.RestoredOriginal)],
            [], TimeSpan.FromMilliseconds(3), TimeSpan.FromMilliseconds(11));

        string[] lines = result.Summary.Split('\n');

        Assert.Equal("Game: 2 methods changed, applied in 14 ms (compare 3 ms, apply 11 ms)", lines[0]);
        Assert.Equal("  Game.World.Update(): IL_0004: ldc.i4.1 → ldc.i4.2", lines[1].TrimEnd('\r'));
        Assert.Equal("  Game.World.Draw(): original body restored", lines[2]);
        Assert.Equal(3, lines.Length);
    }

    [Fact]
    public void ARefusalListsEveryReason()
    {
        var result = new ReloadResult("Game", "/drop/Game.dll", ReloadOutcome.Refused, [],
            [new ReloadRefusal(ReloadRefusalReason.RudeEdit, "Game.World.speed2",
                               "FieldAdded: Game.World.speed2 — a body replacement cannot carry it; restart to take it")],
            TimeSpan.FromMilliseconds(2.5), TimeSpan.Zero);

        string[] lines = result.Summary.Split('\n');

        Assert.Equal("Game: refused, nothing changed (compare 2.5 ms)", lines[0].TrimEnd('\r'));
        Assert.Equal("  refused: FieldAdded: Game.World.speed2 — a body replacement cannot carry it; restart to take it",
                     lines[1]);
    }

    [Fact]
    public void AFailureShowsEachMethodsState()
    {
        var result = new ReloadResult("Game", "/drop/Game.dll", ReloadOutcome.Failed,
            [new MethodReload("Game.A()", MethodReloadState.RolledBack, "IL_0000: x → y"),
             new MethodReload("Game.B()", MethodReloadState.Failed, null, "ALVK_E_METADATA_FAILED")],
            [], TimeSpan.FromMilliseconds(1), TimeSpan.FromMilliseconds(20));

        string summary = result.Summary;

        Assert.StartsWith("Game: failed", summary, StringComparison.Ordinal);
        Assert.Contains("  Game.A(): rolled back", summary, StringComparison.Ordinal);
        Assert.Contains("  Game.B(): failed: ALVK_E_METADATA_FAILED", summary, StringComparison.Ordinal);
    }
}
