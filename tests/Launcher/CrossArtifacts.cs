using System.Security.Cryptography;
using AlvorKit.Interception.Launcher;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>A library of another RID as build.sh's artifact step left it: built into
/// build/native-&lt;rid&gt;/, checked by tests/artifact/check_cross_*.sh, and recorded as checked
/// (build/native-&lt;rid&gt;/checked.sha256: its SHA-256 when every check passed).</summary>
internal sealed record CheckedArtifact(string Rid, string Path, string Sha256);

internal static class CrossArtifacts
{
    /// <summary>The RIDs other than this machine's: the ones cross-built here.</summary>
    public static IEnumerable<string> OtherRids => Rids.Supported.Where(r => r != Repo.Rid);

    public static string Folder(string rid) => Path.Combine(Repo.Root, "build", $"native-{rid}");

    public static string Record(string rid) => Path.Combine(Folder(rid), "checked.sha256");

    /// <summary>The checked library of `rid`, or null when build.sh did not build and check it
    /// (its artifact step printed a "skipped:" line, or never ran). A record whose file changed
    /// since the check is an error, not a skip.</summary>
    public static CheckedArtifact? Checked(string rid)
    {
        string record = Record(rid);
        if (!File.Exists(record))
            return null;
        string[] fields = File.ReadAllText(record).Split(' ', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        Assert.True(fields.Length == 2, $"{record}: expected '<sha256>  <path>', got '{File.ReadAllText(record)}'");
        string path = Path.Combine(Folder(rid), fields[1]);
        Assert.Equal($"native/interception-profiler/{Rids.LibraryFileName(rid)}", fields[1]);
        Assert.True(File.Exists(path), $"{record} names {path}, which is missing");
        string sha = Sha256(File.ReadAllBytes(path));
        Assert.True(string.Equals(fields[0], sha, StringComparison.OrdinalIgnoreCase),
            $"{path} changed after it was checked (recorded {fields[0]}, now {sha}): run its tests/artifact/check_cross_*.sh again");
        return new CheckedArtifact(rid, path, sha);
    }

    /// <summary>Why `rid` has no checked library here, or null when it has one.</summary>
    public static string? NotCheckedReason(string rid) =>
        rid == Repo.Rid
            ? $"{rid} is this machine's RID: its library is build/native-release's (NativePackage and LauncherToolPackage check it)"
            : File.Exists(Record(rid))
                ? null
                : $"{rid}'s library was not built and checked here: no {Record(rid)} (./build.sh test's artifact step writes it; " +
                  "its '!!! skipped:' line names the missing cross tool)";

    public static string Sha256(byte[] bytes) => Convert.ToHexString(SHA256.HashData(bytes));
}

/// <summary>A fact about another RID's checked library: skipped, with the reason, when this
/// machine did not build and check it (or when `rid` is this machine's own).</summary>
public sealed class CheckedArtifactFactAttribute : FactAttribute
{
    public CheckedArtifactFactAttribute(string rid)
    {
        if (CrossArtifacts.NotCheckedReason(rid) is { } reason)
            Skip = reason;
    }
}
