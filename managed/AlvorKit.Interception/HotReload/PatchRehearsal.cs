using System.Reflection;

namespace AlvorKit.Interception.HotReload;

/// <summary>What the warm-up's real patch saw: the string the rehearsal method returned before the
/// patch, while patched, and after the patch was removed, and the difference its update reported.</summary>
internal sealed record RehearsedPatch(string Original, string Patched, string Restored, string? Difference);

/// <summary>
/// The one real patch of the reload's warm-up, on a method AlvorKit owns, never the game's: the
/// launcher's watch allowlists the assembly AlvorKit.Interception.Rehearsal (one static method,
/// <c>RehearsalTarget.Value</c>, returning a constant), and the warm-up applies an update of that
/// method (<see cref="RehearsalDelta"/>: a body that returns a new string) through the whole path a
/// game's update takes (read, translated, its difference worked out, validated, described,
/// submitted as one batch, waited for, adopted, committed), calls it, undoes the update and calls
/// it again. So the first update of the game is not the first update or patch of the process: the
/// translation of a body naming a new string, the profiler's first batch on its worker (the stack
/// type check, a new string's emission, the runtime's first ReJIT request) and the first adoption
/// and commit are paid here, before the watcher says it watches.
/// </summary>
internal static class PatchRehearsal
{
    /// <summary>The assembly's simple name (managed/AlvorKit.Interception.Rehearsal; the launcher's
    /// watch allowlists it by the same name).</summary>
    public const string AssemblyName = "AlvorKit.Interception.Rehearsal";

    private const string TypeName = "AlvorKit.Interception.Rehearsal.RehearsalTarget";
    private const string MethodName = "Value";

    /// <summary>What the rehearsal's body returns.</summary>
    public const string Replaced = "rehearsed";

    /// <summary>The rehearsal method, when its assembly is allowlisted and can be loaded; else null.</summary>
    public static MethodInfo? Target(IReadOnlySet<string> allowlisted)
    {
        if (!allowlisted.Contains(AssemblyName))
            return null;
        try
        {
            return Assembly.Load(new AssemblyName(AssemblyName)).GetType(TypeName)?.GetMethod(MethodName, BindingFlags.Public |
                BindingFlags.Static, Type.EmptyTypes) is { ReturnType: var type } method && type == typeof(string)
                ? method
                : null;
        }
        catch (Exception e) when (e is FileNotFoundException or FileLoadException or BadImageFormatException)
        {
            return null; // not shipped beside this process: the first update pays
        }
    }

    /// <summary>Calls the method as the game would call a patched one (through its entry point).</summary>
    public static string Call(MethodInfo target) => target.CreateDelegate<Func<string>>()();
}
