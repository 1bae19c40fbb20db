// One harness's seed corpus: candidates are deduplicated by content, then chosen for the
// features they add (a greedy set cover, like libFuzzer's merge keeps inputs for coverage)
// and filled up to the limit; the output depends only on the assemblies read. Files are
// named by the SHA-1 of their content, as libFuzzer names the inputs it writes.
using System.Security.Cryptography;

namespace AlvorKit.Fuzz.SeedGen;

internal sealed class Corpus(string name, int limit, int maxBytes, bool everything)
{
    private readonly Dictionary<string, (byte[] Bytes, string[] Features)> _candidates = new();

    public string Name { get; } = name;

    public int CandidateCount => _candidates.Count;

    /// <summary>Offers one input with the features it exercises (element types, opcodes,
    /// header kinds...). Inputs above the size bound are ignored.</summary>
    public void Add(byte[] bytes, IEnumerable<string> features)
    {
        if (bytes.Length == 0 || (bytes.Length > maxBytes && !everything))
            return;
        string key = Convert.ToHexStringLower(SHA1.HashData(bytes));
        if (!_candidates.ContainsKey(key))
            _candidates[key] = (bytes, features.Append($"len:{Log2(bytes.Length)}").Distinct().ToArray());
    }

    private static int Log2(int n) => 31 - int.LeadingZeroCount(n);

    /// <summary>Writes the chosen inputs into directory (emptied first); returns how many.</summary>
    public int Write(string directory)
    {
        var chosen = everything ? _candidates.Keys.ToList() : Choose();
        if (Directory.Exists(directory))
            Directory.Delete(directory, recursive: true);
        Directory.CreateDirectory(directory);
        foreach (string key in chosen)
            File.WriteAllBytes(Path.Combine(directory, key), _candidates[key].Bytes);
        return chosen.Count;
    }

    /// <summary>Greedy set cover, lazily evaluated: repeatedly the input adding the most
    /// features not yet covered (ties: the smaller, then the lower hash); once nothing adds
    /// any, the rest in hash order, which is arbitrary but reproducible.</summary>
    private List<string> Choose()
    {
        var covered = new HashSet<string>();
        var chosen = new List<string>();
        var queue = new PriorityQueue<string, (int Gain, int Length, string Key)>(
            Comparer<(int Gain, int Length, string Key)>.Create((a, b) =>
                a.Gain != b.Gain ? b.Gain.CompareTo(a.Gain)
                : a.Length != b.Length ? a.Length.CompareTo(b.Length)
                : string.CompareOrdinal(a.Key, b.Key)));
        foreach (var (key, value) in _candidates)
            queue.Enqueue(key, (value.Features.Length, value.Bytes.Length, key));
        while (chosen.Count < limit && queue.TryDequeue(out string? key, out var priority))
        {
            var value = _candidates[key];
            int gain = value.Features.Count(f => !covered.Contains(f));
            if (gain == 0)
                continue; // stale: others may still add features; the fill below may take it
            if (gain < priority.Gain && queue.TryPeek(out _, out var next) && gain < next.Gain)
            {
                queue.Enqueue(key, (gain, value.Bytes.Length, key)); // stale: re-rank
                continue;
            }
            chosen.Add(key);
            covered.UnionWith(value.Features);
        }
        var picked = chosen.ToHashSet();
        foreach (string key in _candidates.Keys.Order(StringComparer.Ordinal))
        {
            if (chosen.Count >= limit)
                break;
            if (picked.Add(key))
                chosen.Add(key);
        }
        return chosen;
    }
}
