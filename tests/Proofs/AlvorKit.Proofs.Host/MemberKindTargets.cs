using System.Runtime.CompilerServices;

namespace AlvorKit.Proofs.Host;

// Members that are not plain methods, as hooks find them (MemberKindProof): a static constructor, an
// iterator's and an async method's MoveNext, a finalizer and an event's accessors. Each counts what its
// original did, so the proof reads the hooks beside the original's own effect.

/// <summary>What the hooks of MemberKindPatches (and Mortal's own finalizer) counted.</summary>
public enum MemberKindCounter
{
    StaticConstructorPrefixes,
    IteratorSteps,
    AsyncSteps,
    Finalized,
    FinalizedByHook,
    EventAdds,
}

/// <summary>The counters, by <see cref="MemberKindCounter"/>.</summary>
public static class MemberKindLog
{
    private static readonly int[] Counts = new int[6];

    /// <summary>Adds one (from any thread).</summary>
    public static void Count(MemberKindCounter counter) => Interlocked.Increment(ref Counts[(int)counter]);

    /// <summary>The counter's value.</summary>
    public static int Read(MemberKindCounter counter) => Volatile.Read(ref Counts[(int)counter]);
}

/// <summary>A type with an explicit static constructor (not beforefieldinit): it runs at the first access,
/// after the proof hooked it.</summary>
public static class LateInitialized
{
    public static readonly int Value;

    static LateInitialized()
    {
        Value = 7;
    }
}

/// <summary>An iterator and an async method: the compiler moves their bodies into a state machine's MoveNext.</summary>
public static class StateMachines
{
    /// <summary>1, 2, 3.</summary>
    public static IEnumerable<int> Count3()
    {
        yield return 1;
        yield return 2;
        yield return 3;
    }

    /// <summary>x * 2, after one real suspension (so MoveNext runs twice).</summary>
    public static async Task<int> Twice(int x)
    {
        await Task.Yield();
        return x * 2;
    }
}

/// <summary>A class with a finalizer that counts its runs.</summary>
public sealed class Mortal
{
    ~Mortal() => MemberKindLog.Count(MemberKindCounter.Finalized);

    /// <summary>Allocates `count` instances nothing keeps.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Abandon(int count)
    {
        for (int i = 0; i < count; i++)
            _ = new Mortal();
    }
}

/// <summary>A class with an event: its add accessor is hooked.</summary>
public sealed class Emitter
{
    public event EventHandler? Fired;

    /// <summary>How many handlers are subscribed.</summary>
    public int Handlers => Fired?.GetInvocationList().Length ?? 0;
}
