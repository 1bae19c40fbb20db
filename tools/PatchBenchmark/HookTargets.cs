using System.Runtime.CompilerServices;

namespace AlvorKit.PatchBenchmark;

// Methods of one shape for the hook benchmark: the original is never patched (the baseline);
// each of the others gets hooks woven around its own, identical, body.
public static class HookTargets
{
    // The baseline: the original, unpatched.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Original(int x) => x * 3 + 1;

    // An empty public prefix and postfix: the woven body calls them directly (call <MethodDef>).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int EmptyHooks(int x) => x * 3 + 1;

    // The same empty hooks, but not public: the woven body calls them through calli.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int EmptyHooksCalli(int x) => x * 3 + 1;

    // A prefix that reads an argument and a postfix that changes __result.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int WorkingHooks(int x) => x * 3 + 1;
}

// The hooks (static, as every hook is).
public static class Hooks
{
    public static void EmptyPrefix()
    {
    }

    public static void EmptyPostfix()
    {
    }

    public static int Seen { get; private set; }

    public static void ReadingPrefix(int x) => Seen = x;

    public static void ChangingPostfix(ref int __result) => __result += 1;
}

internal static class HiddenHooks
{
    internal static void EmptyPrefix()
    {
    }

    internal static void EmptyPostfix()
    {
    }
}
