using System.Reflection;

namespace AlvorKit.Interception.Internal;

/// <summary>A method as its module and metadata token (every instantiation of a generic method or type shares
/// it), as the key of the tables that hold one entry per target. A class, not a value tuple: a table keyed by a
/// reference type runs the framework's shared code, which its precompiled images hold, where a value-type key
/// would have its own code JIT-compiled at the first use.</summary>
internal sealed record MethodKey(Module Module, int Token)
{
    public static MethodKey Of(MethodBase method) => new(method.Module, method.MetadataToken);
}
