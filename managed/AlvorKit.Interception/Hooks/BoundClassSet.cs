namespace AlvorKit.Interception.Hooks;

/// <summary>One target's hook set of a patch class, bound: its hooks, transpilers and inner hooks.</summary>
internal sealed record BoundClassSet(DiscoveredSet Set, BoundSet Hooks, IReadOnlyList<BoundTranspiler> Transpilers,
    IReadOnlyList<BoundInfix> Infixes);
