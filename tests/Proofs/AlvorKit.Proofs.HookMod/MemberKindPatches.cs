using AlvorKit.Interception;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HookMod;

// Patch classes of MemberKindProof: hooks on members that are not plain methods, named by PatchMethodKind.

/// <summary>A prefix on LateInitialized's static constructor.</summary>
[Patch(typeof(LateInitialized), Kind = PatchMethodKind.StaticConstructor)]
public static class StaticConstructorPatch
{
    public static void Prefix() => MemberKindLog.Count(MemberKindCounter.StaticConstructorPrefixes);
}

/// <summary>A postfix on Count3's MoveNext: counts the steps that produced an item.</summary>
[Patch(typeof(StateMachines), nameof(StateMachines.Count3), Kind = PatchMethodKind.Enumerator)]
public static class IteratorPatch
{
    public static void Postfix(bool __result)
    {
        if (__result)
            MemberKindLog.Count(MemberKindCounter.IteratorSteps);
    }
}

/// <summary>A prefix on Twice's MoveNext: counts the state machine's steps.</summary>
[Patch(typeof(StateMachines), nameof(StateMachines.Twice), Kind = PatchMethodKind.Async)]
public static class AsyncPatch
{
    public static void Prefix() => MemberKindLog.Count(MemberKindCounter.AsyncSteps);
}

/// <summary>A prefix on Mortal's finalizer.</summary>
[Patch(typeof(Mortal), Kind = PatchMethodKind.Finalizer)]
public static class FinalizerPatch
{
    public static void Prefix() => MemberKindLog.Count(MemberKindCounter.FinalizedByHook);
}

/// <summary>A prefix on the add accessor of Emitter.Fired.</summary>
[Patch(typeof(Emitter), nameof(Emitter.Fired), Kind = PatchMethodKind.EventAdd)]
public static class EventAddPatch
{
    public static void Prefix() => MemberKindLog.Count(MemberKindCounter.EventAdds);
}
