using System.Reflection;
using AlvorKit.Interception.Internal;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>The reload's warm-up runs the first adoption's table code on a table of its own
/// (<see cref="PatchRegistry.Rehearse"/>): the registry's live table is left as it was, whether
/// it tracks the method or not.</summary>
public sealed class PatchRegistryRehearsalTests
{
    private static int Untracked(int x) => x + 1;

    private static int Tracked(int x) => x + 2;

    private static MethodInfo Method(string name) =>
        typeof(PatchRegistryRehearsalTests).GetMethod(name, BindingFlags.NonPublic | BindingFlags.Static)!;

    [Fact]
    public void ARehearsalTracksNothing()
    {
        MethodBase method = Method(nameof(Untracked));
        Assert.Null(PatchRegistry.Find(method));
        PatchRegistry.Rehearse(method);
        Assert.Null(PatchRegistry.Find(method));
    }

    [Fact]
    public void ARehearsalKeepsATrackedPatch()
    {
        MethodBase method = Method(nameof(Tracked));
        NativePatch tracked = PatchRegistry.Track(method, 7);
        try
        {
            PatchRegistry.Rehearse(method);
            NativePatch? found = PatchRegistry.Find(method);
            Assert.Same(tracked, found);
            Assert.Equal(7ul, found!.Handle);
            Assert.Null(found.HeldBy(null));
        }
        finally
        {
            PatchRegistry.Forget(tracked);
        }
        Assert.Null(PatchRegistry.Find(method));
    }
}
