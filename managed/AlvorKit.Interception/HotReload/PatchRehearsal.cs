using System.Reflection;
using System.Text;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.HotReload;

/// <summary>What the warm-up's real patch saw: the string the rehearsal method returned before the
/// patch, while patched, and after the patch was removed.</summary>
internal sealed record RehearsedPatch(string Original, string Patched, string Restored);

/// <summary>
/// The one real patch of the reload's warm-up, on a method AlvorKit owns, never the game's: the
/// launcher's watch allowlists the assembly AlvorKit.Interception.Rehearsal (one static method,
/// <c>RehearsalTarget.Value</c>, returning a constant), and the warm-up gives that method a body
/// that returns a new string, through the path a reload's patch takes (validated, described,
/// submitted as one batch, waited for, adopted, and its applied body kept and let go in the
/// reloader's table as a commit keeps it), calls it, removes the patch and calls it again. So the
/// first update of the game is not the first patch of the process: the profiler's first batch on
/// its worker (the stack type check, a new string's emission, the runtime's first ReJIT request)
/// and the first adoption and commit are paid here, before the watcher says it watches.
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

    /// <summary>The body <c>ldstr "rehearsed"; ret</c> as a generation of the rehearsal method
    /// (the string is new to its module: a relocation).</summary>
    public static LoweredGeneration Body()
    {
        // Tiny header (code size 6), ldstr <relocated>, ret.
        byte[] body = [(6 << 2) | 0x2, 0x72, 0, 0, 0, 0x70, 0x2A];
        var table = new RelocationTable();
        table.AtOperand(new RelocationRequest(RelocationKind.UserString, Encoding.Unicode.GetBytes(Replaced), null, Parent.None,
                                              $"user string \"{Replaced}\""), 1);
        (List<RelocationSpec> specs, byte[] pool) = table.Build(null);
        return new LoweredGeneration(body, pool, specs, [new ILMapSpec(0, 0, true)], 1);
    }

    /// <summary>Calls the method as the game would call a patched one (through its entry point).</summary>
    public static string Call(MethodInfo target) => target.CreateDelegate<Func<string>>()();
}
