using System.Globalization;
using System.Text.RegularExpressions;

namespace ReloadBenchmark;

/// <summary>
/// A copy of samples/LiveDemo in its own folder, built as the repository builds it: the same
/// Directory.Build.props/.targets (imported), the same .editorconfig, global.json, and the
/// reference to managed/AlvorKit.Interception by its absolute path. The benchmark edits the
/// copy's Scoring.cs, never the repository's. The large project is the same copy with a
/// generated colony simulation beside it (<see cref="ColonySource"/>).
/// </summary>
internal sealed partial class DemoCopy
{
    public const string EditedFile = "Scoring.cs";

    private readonly string _original;

    private DemoCopy(string root, string projectDirectory, string original, int lines)
    {
        Root = root;
        ProjectDirectory = projectDirectory;
        _original = original;
        Lines = lines;
    }

    /// <summary>The lines of C# in the copy (LiveDemo's and the colony's).</summary>
    public int Lines { get; }

    /// <summary>The copy's root (its Directory.Build.* files are here).</summary>
    public string Root { get; }

    public string ProjectDirectory { get; }

    public string Project => Path.Combine(ProjectDirectory, "LiveDemo.csproj");

    public string EditedPath => Path.Combine(ProjectDirectory, EditedFile);

    /// <param name="colonyLines">0: LiveDemo as it is; otherwise at least this many lines of
    /// generated colony code beside it.</param>
    public static DemoCopy Create(string demoDirectory, string repoRoot, string root, int colonyLines)
    {
        string project = Path.Combine(root, "LiveDemo");
        Directory.CreateDirectory(project);
        foreach (string source in Directory.EnumerateFiles(demoDirectory, "*.cs"))
            File.Copy(source, Path.Combine(project, Path.GetFileName(source)));
        string csproj = File.ReadAllText(Path.Combine(demoDirectory, "LiveDemo.csproj"));
        string rewritten = ProjectReference().Replace(csproj, m =>
            m.Groups[1].Value + Path.GetFullPath(Path.Combine(demoDirectory, m.Groups[2].Value)) + m.Groups[3].Value);
        if (rewritten == csproj)
            throw new InvalidOperationException("LiveDemo.csproj has no ProjectReference to rewrite");
        int lines = Directory.EnumerateFiles(project, "*.cs").Sum(f => File.ReadLines(f).Count());
        if (colonyLines > 0)
        {
            lines += ColonySource.Write(Path.Combine(project, "Colony"), colonyLines);
            // Generated code: the repository's strict analyzer set stays on LiveDemo, not here.
            rewritten = rewritten.Replace("<PropertyGroup>",
                "<PropertyGroup>\n    <AlvkStrictAnalysis>false</AlvkStrictAnalysis>", StringComparison.Ordinal);
        }
        File.WriteAllText(Path.Combine(project, "LiveDemo.csproj"), rewritten);
        foreach (string name in new[] { "Directory.Build.props", "Directory.Build.targets" })
            File.WriteAllText(Path.Combine(root, name),
                $"<Project>\n  <Import Project=\"{Path.Combine(repoRoot, name)}\" />\n</Project>\n");
        foreach (string name in new[] { ".editorconfig", "global.json" })
            File.Copy(Path.Combine(repoRoot, name), Path.Combine(root, name));
        string original = File.ReadAllText(Path.Combine(project, EditedFile));
        if (!PointsFor().IsMatch(original))
            throw new InvalidOperationException($"{EditedFile} has no `PointsFor(int inGoal) => ...;` to edit");
        return new DemoCopy(root, project, original, lines);
    }

    /// <summary>Saves Scoring.cs with PointsFor returning <paramref name="points"/>: one write of
    /// the whole file in place, as an editor saves.</summary>
    public void SavePointsFor(int points)
    {
        string text = PointsFor().Replace(_original,
            m => m.Groups[1].Value + points.ToString(CultureInfo.InvariantCulture) + ";", 1);
        File.WriteAllBytes(EditedPath, System.Text.Encoding.UTF8.GetBytes(text));
    }

    [GeneratedRegex("""(<ProjectReference Include=")([^"]+)(")""")]
    private static partial Regex ProjectReference();

    [GeneratedRegex(@"(public static int PointsFor\(int inGoal\) => )[^;]+;")]
    private static partial Regex PointsFor();
}
