using System.Globalization;
using System.Text.RegularExpressions;

namespace AlvorKit.Proofs;

/// <summary>
/// The JIT's listings one inline-site run wrote (DOTNET_JitDisasm into DOTNET_JitStdOutFile), cut
/// into phases at the listings of InlineSiteTargets.InlineSitePhaseN (phase -1: before the first
/// mark), as InlineSiteProofs and InlineSiteFirstCallProofs read them.
/// </summary>
internal sealed partial class InlineSiteListings
{
    private readonly List<(int Phase, string Header, string Text)> _listings = [];

    public InlineSiteListings(string text)
    {
        int phase = -1;
        foreach (string listing in text.Split("; Assembly listing for method ").Skip(1))
        {
            string header = listing[..listing.IndexOf('\n', StringComparison.Ordinal)];
            Match mark = PhaseMark().Match(header);
            if (mark.Success)
                phase = int.Parse(mark.Groups[1].Value, CultureInfo.InvariantCulture);
            else
                _listings.Add((phase, header, listing));
        }
    }

    /// <summary>The listings of the method whose header contains `method`, in the order compiled, with their phase.</summary>
    public IEnumerable<(int Phase, string Header, string Text)> Of(string method) =>
        _listings.Where(l => l.Header.Contains(method, StringComparison.Ordinal));

    /// <summary>The method's listings in one phase, in the order compiled.</summary>
    public List<string> InPhase(string method, int phase) => [.. Of(method).Where(l => l.Phase == phase).Select(l => l.Text)];

    /// <summary>The method's last optimized listing (Tier1 or FullOpts) in the phase: its final code; "" when none.</summary>
    public string Final(string method, int phase) =>
        Of(method).LastOrDefault(l => l.Phase == phase && Optimized(l.Header)).Text ?? "";

    public static bool Optimized(string header) =>
        header.EndsWith("(Tier1)", StringComparison.Ordinal) || header.EndsWith("(FullOpts)", StringComparison.Ordinal);

    /// <summary>Whether a call instruction of the listing names `method`.</summary>
    public static bool Calls(string listing, string method) =>
        listing.Split('\n').Any(line => line.TrimStart().StartsWith("call", StringComparison.Ordinal) &&
                                        line.Contains(method, StringComparison.Ordinal));

    [GeneratedRegex(@"InlineSiteTargets:InlineSitePhase(\d+)\(\)")]
    private static partial Regex PhaseMark();
}
