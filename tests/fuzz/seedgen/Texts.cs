// ALVORKIT_INTERCEPTION_MODULES values and whole startup environments, made from the simple
// names and file paths of the assemblies read: well-formed lists and each rule's edge
// (blanks, a trailing ';', '*', a repeated name in another case, a path, too many names).
namespace AlvorKit.Fuzz.SeedGen;

internal static class Texts
{
    private static string Flip(string s) =>
        new(s.Select(ch => char.IsUpper(ch) ? char.ToLowerInvariant(ch) : char.ToUpperInvariant(ch)).ToArray());

    /// <summary>Module-list values built from names[at ..], with what each exercises.</summary>
    private static IEnumerable<(string Text, string Feature)> Lists(IReadOnlyList<string> names, int at)
    {
        string[] few = Enumerable.Range(0, 4).Select(i => names[(at + i) % names.Count]).Distinct().ToArray();
        yield return (few[0], "one");
        yield return (string.Join(';', few), "several");
        yield return (" " + string.Join(" ;\t", few) + ";", "blanks_trailing");
        yield return ("*", "star");
        yield return ("*;", "star_trailing");
        yield return (few[0] + ";" + Flip(few[0]), "repeated");
        yield return (few[0] + ";;" + few[^1], "empty_entry");
        yield return (few[0] + ";*", "star_mixed");
        yield return ($"/opt/game/{few[0]}.dll", "path");
        var many = Enumerable.Range(0, 33).Select(i => names[(at + i) % names.Count]).Distinct();
        yield return (string.Join(';', many), "many");
        yield return (";", "only_separator");
        yield return ("", "empty");
    }

    public static void Collect(IReadOnlyList<string> names, IReadOnlyList<string> paths, Corpora c)
    {
        byte[] caps = [0, 1, 64, 255];
        for (int at = 0; at < names.Count; ++at)
        {
            int k = 0;
            foreach (var (text, feature) in Lists(names, at))
            {
                byte cap = caps[(at + k++) % caps.Length];
                string probe = k % 2 == 0 ? Flip(names[at]) : names[(at + 7) % names.Count];
                c.Allowlist.Add(new Inputs().U8(cap).Text(text).U8(0).Text(probe).ToArray(),
                                [feature, $"cap:{cap}"]);
                string[] flags = ["", "0", "1", "yes"];
                string flag = flags[(at + k) % flags.Length];
                // The assemblies' file names under one neutral directory: no local paths in
                // the repository.
                string path = "/opt/game/" + Path.GetFileName(paths[at % paths.Count]);
                string other = "/opt/game/" + Path.GetFileName(paths[(at + 1) % paths.Count]);
                string self = (at + k) % 3 == 0 ? other : path;
                int control = (self == path ? 16 : 0) | ((at + k) % 7 == 0 ? 1 << (k % 4) : 0);
                c.Config.Add(new Inputs().U8(control).Text(text).U8(0).Text(flag).U8(0).Text(path).U8(0)
                                         .Text(self).ToArray(),
                             [feature, $"flag:{flag}", $"control:{control}"]);
            }
        }
    }
}
