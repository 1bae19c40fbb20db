using System.Reflection;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Plans;

/// <summary>
/// An ldtoken operand that no reflection symbol expresses: a generic definition instantiated over its
/// own generic parameters. <see cref="Definition"/> is the target's declaring type definition
/// (<c>Bag&lt;!0&gt;</c>, a TypeSpec), or the target itself (<c>Bag&lt;!0&gt;::Add</c>, a MemberRef on
/// that TypeSpec; for a generic method, <c>M&lt;!!0&gt;</c>, a MethodSpec). Inside the target's body,
/// through its generic context (shared canonical code included), such a token names the instantiation
/// running, where the definition's own token names the open definition.
/// </summary>
/// <param name="Definition">The target's declaring type definition, or the target (a definition).</param>
internal sealed record OwnInstantiation(MemberInfo Definition)
{
    /// <inheritdoc />
    public override string ToString() => Definition switch
    {
        Type type => $"{Names.Of(type)} over its own generic parameters",
        MethodBase method => $"{Names.Of(method)} over its own generic parameters",
        _ => Definition.Name,
    };
}
