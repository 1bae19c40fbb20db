using System.Text;
using System.Text.RegularExpressions;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>build.sh's demo_reload_wait, the wait of `./build.sh demo` for a line in the game's
/// log, as build.sh defines it, run by bash under build.sh's own `set -euo pipefail`: it finds a
/// line in a log far past a pipe's buffer (a slow start lets the game log hundreds of KB first),
/// wherever the line is, and only after the line it is given.</summary>
public sealed partial class DemoScriptTests
{
    // The log: 2,000 frames of 200 bytes (400 KB), a line to find near its start, one at its end.
    private static string Log(TempDir dir)
    {
        var text = new StringBuilder("first: near the start\n");
        for (int i = 1; i <= 2000; i++)
            text.Append(Frame(i)).Append(new string('.', 194)).Append('\n');
        text.Append("last: at the end\n");
        string path = Path.Combine(dir.Path, "game.log");
        File.WriteAllText(path, text.ToString());
        Assert.True(new FileInfo(path).Length > 200 * 1024);
        return path;
    }

    private static string Frame(int i) => i.ToString("D6", System.Globalization.CultureInfo.InvariantCulture);

    [Theory]
    [InlineData("first: near the start", 0, true)]
    [InlineData("last: at the end", 0, true)]
    [InlineData("001000", 500, true)]
    [InlineData("first: near the start", 1, false)]
    [InlineData("no such line", 0, false)]
    public void TheWaitFindsALineInALogPastThePipeBuffer(string text, int after, bool found)
    {
        using var dir = new TempDir("demo-wait");
        string log = Log(dir);
        string script = string.Join('\n', Functions()) +
                        "\nDEMO_WAIT=3 demo_reload_wait \"$1\" \"$2\" \"the line\" \"$3\"\necho waited\n";
        ProcessResult r = Processes.Run("bash", ["-c", "set -euo pipefail\n" + script, "bash", log, text,
                                                 after.ToString(System.Globalization.CultureInfo.InvariantCulture)],
                                        timeout: TimeSpan.FromSeconds(30));
        if (found)
        {
            Assert.True(r.ExitCode == 0, r.ToString());
            Assert.Equal("waited\n", r.Stdout);
        }
        else
        {
            Assert.True(r.ExitCode == 1, r.ToString());
            Assert.Contains($"FAILED: no the line within 3 s ({log}: '{text}')", r.Stderr);
        }
    }

    // build.sh's demo_reload_ functions at the top level (demo_reload_wait and what it calls).
    private static string[] Functions()
    {
        string build = File.ReadAllText(Path.Combine(Repo.Root, "build.sh"));
        string[] functions = [.. TopLevelDemoFunction().Matches(build).Select(m => m.Value)];
        Assert.Contains(functions, f => f.StartsWith("demo_reload_wait() {", StringComparison.Ordinal));
        return functions;
    }

    [GeneratedRegex(@"(?ms)^demo_reload_\w+\(\) \{$.*?^\}$")]
    private static partial Regex TopLevelDemoFunction();
}
