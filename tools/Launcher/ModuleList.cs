namespace AlvorKit.Interception.Launcher;

/// <summary>
/// --modules: assembly simple names, separated by ';' or ',' (',' spares the quoting a shell
/// needs for ';'), checked by the rules the profiler applies to ALVORKIT_INTERCEPTION_MODULES
/// (native/interception-profiler/src/catalog/allowlist.c), so a list the profiler would
/// reject at startup (and then stay inert) is refused here, before anything starts.
/// </summary>
internal static class ModuleList
{
    public const int MaxNames = 32;
    public const int MaxNameLength = 127;

    /// <summary>The value for ALVORKIT_INTERCEPTION_MODULES ("A;B"), or null when no
    /// --modules was given.</summary>
    public static string? Normalize(IReadOnlyList<string> values, bool isolatedProof)
    {
        if (values.Count == 0)
            return null;
        var names = new List<string>();
        bool star = false;
        foreach (string value in values)
        {
            string[] parts = value.Split([';', ','], StringSplitOptions.TrimEntries);
            for (int i = 0; i < parts.Length; i++)
            {
                string name = parts[i];
                if (name.Length == 0)
                {
                    if (i == parts.Length - 1 && i > 0)
                        continue; // one trailing separator
                    throw Usage($"--modules \"{value}\" has an empty entry; give assembly simple names, such as Game.Logic;Game.Core.");
                }
                if (name == "*")
                {
                    star = true;
                    continue;
                }
                if (name.Length > MaxNameLength)
                    throw Usage($"--modules: \"{name[..32]}...\" is longer than {MaxNameLength} bytes.");
                if (!name.All(IsNameChar))
                    throw Usage($"--modules: \"{name}\" has a character outside [A-Za-z0-9._-]; give assembly simple names (Game.Logic), not paths or file names.");
                if (names.Contains(name, StringComparer.OrdinalIgnoreCase))
                    throw Usage($"--modules: \"{name}\" is listed twice.");
                names.Add(name);
            }
        }
        if (star && names.Count > 0)
            throw Usage("--modules mixes '*' with names; give either names or '*'.");
        if (star)
        {
            if (!isolatedProof)
                throw Usage(
                    "--modules '*' refused: '*' makes every module in the process patchable, the .NET " +
                    "framework and every library included, so one wrong request can rewrite code that is not " +
                    "the game's; the product allows it only in isolated proof processes. Name the assemblies " +
                    "to patch (--modules Game.Logic;Game.Core), or add --isolated-proof if this process is an " +
                    "isolated proof run.");
            return "*";
        }
        if (names.Count == 0)
            throw Usage("--modules is empty; give assembly simple names, such as Game.Logic;Game.Core.");
        if (names.Count > MaxNames)
            throw Usage($"--modules lists {names.Count} names; the profiler accepts at most {MaxNames}.");
        return string.Join(';', names);
    }

    private static bool IsNameChar(char c) =>
        c is >= 'A' and <= 'Z' or >= 'a' and <= 'z' or >= '0' and <= '9' or '.' or '_' or '-';

    private static LauncherException Usage(string message) => new(ExitCodes.Usage, message);
}
