using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;

#pragma warning disable CA1707 // hook parameters carry the injected names (__result)

namespace AlvorKit.Proofs.Host;

/// <summary>The methods the core patch classes below patch (CorePatchClassProof).</summary>
public static class CoreLifecycleGame
{
    /// <summary>A target TargetMethods returns (+1000 when hooked).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Alpha(int x) => x + 1;

    /// <summary>A target TargetMethods returns that Prepare(original) skips.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Beta(int x) => x + 2;

    /// <summary>The target of a class in the category "core.late" (+7000 when hooked).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Late(int x) => x + 3;

    /// <summary>The target of an uncategorized [Patch] class (+50), and of a class whose Prepare() skips it.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Plain(int x) => x + 4;
}

/// <summary>Whole-type patching ([PatchDeclaredMembers]): every method it declares gets +100.</summary>
public static class CoreWholeGame
{
    /// <summary>One member.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int First(int x) => x + 1;

    /// <summary>Another member.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Second(int x) => x + 2;
}

/// <summary>The lifecycle calls of the core patch classes, in order.</summary>
public static class CorePatchLog
{
    /// <summary>The calls.</summary>
    public static List<string> Calls { get; } = [];
}

/// <summary>Targets from [PatchTargetMethods]; [PatchPrepare] skips Beta; both log their calls.</summary>
public static class CoreTargetMethodsPatch
{
    /// <summary>Two targets.</summary>
    [PatchTargetMethods]
    public static IEnumerable<MethodBase> Which() =>
        [typeof(CoreLifecycleGame).GetMethod(nameof(CoreLifecycleGame.Alpha))!,
         typeof(CoreLifecycleGame).GetMethod(nameof(CoreLifecycleGame.Beta))!];

    /// <summary>Called without a target, then with each.</summary>
    [PatchPrepare]
    public static bool Ready(MethodBase original, PatchOwner owner)
    {
        CorePatchLog.Calls.Add($"Ready({original?.Name ?? "null"}, {owner.Name})");
        return original?.Name != nameof(CoreLifecycleGame.Beta);
    }

    /// <summary>+1000.</summary>
    public static void Postfix(ref int __result) => __result += 1000;

    /// <summary>Called per target and at the end.</summary>
    [PatchCleanup]
    public static void Done(MethodBase original, Exception ex) =>
        CorePatchLog.Calls.Add($"Done({original?.Name ?? "null"}, {ex?.GetType().Name ?? "null"})");
}

/// <summary>Uncategorized: +50 on Plain.</summary>
[Patch(typeof(CoreLifecycleGame), nameof(CoreLifecycleGame.Plain))]
public static class CorePlainPatch
{
    /// <summary>+50.</summary>
    public static void Postfix(ref int __result) => __result += 50;
}

/// <summary>Prepare() returns false: nothing is patched; Cleanup still runs.</summary>
[Patch(typeof(CoreLifecycleGame), nameof(CoreLifecycleGame.Plain))]
public static class CoreSkippedClassPatch
{
    /// <summary>Never.</summary>
    public static bool Prepare() => false;

    /// <summary>Would break Plain.</summary>
    public static void Postfix(ref int __result) => __result = -1;

    /// <summary>Logs.</summary>
    public static void Cleanup() => CorePatchLog.Calls.Add("Skipped.Cleanup");
}

/// <summary>In the category "core.late": +7000 on Late.</summary>
[Patch(typeof(CoreLifecycleGame), nameof(CoreLifecycleGame.Late))]
[PatchCategory("core.late")]
public static class CoreLatePatch
{
    /// <summary>+7000.</summary>
    public static void Postfix(ref int __result) => __result += 7000;
}

/// <summary>Every method of CoreWholeGame: +100.</summary>
[Patch(typeof(CoreWholeGame))]
[PatchDeclaredMembers]
public static class CoreWholePatch
{
    /// <summary>+100.</summary>
    public static void Postfix(ref int __result) => __result += 100;
}
