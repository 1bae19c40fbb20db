// Seeds for the UTF-8 / UTF-16 harness (fuzz_utf.c), which reads every input both ways: the
// names of the assemblies' string heap and the literals of their user-string heap, each as
// UTF-8 and as UTF-16LE (lone surrogates kept), plus each rule's edge: overlong forms,
// surrogates, values above U+10FFFF, bad and missing continuation bytes, cut sequences, NUL.
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Runtime.InteropServices;
using System.Text;

namespace AlvorKit.Fuzz.SeedGen;

internal static class Unicode
{
    /// <summary>What a text exercises: the UTF-8 length class of each character, surrogate
    /// pairs and unpaired surrogates.</summary>
    private static IEnumerable<string> Classes(string s)
    {
        for (int i = 0; i < s.Length; ++i)
        {
            char ch = s[i];
            if (char.IsHighSurrogate(ch) && i + 1 < s.Length && char.IsLowSurrogate(s[i + 1]))
            {
                yield return "bytes:4";
                ++i;
            }
            else if (char.IsSurrogate(ch))
                yield return "unpaired";
            else
                yield return ch < 0x80 ? "bytes:1" : ch < 0x800 ? "bytes:2" : "bytes:3";
        }
    }

    private static void Add(Corpora c, string s)
    {
        if (s.Length == 0)
            return;
        string[] classes = Classes(s).Distinct().ToArray();
        if (!classes.Contains("unpaired"))
            c.Utf.Add(Encoding.UTF8.GetBytes(s), classes.Select(f => "utf8:" + f));
        c.Utf.Add(MemoryMarshal.AsBytes(s.AsSpan()).ToArray(), classes.Select(f => "utf16:" + f));
    }

    public static void Collect(MetadataReader md, Corpora c)
    {
        foreach (var h in md.TypeDefinitions)
            Add(c, md.GetString(md.GetTypeDefinition(h).Name));
        foreach (var h in md.MemberReferences)
            Add(c, md.GetString(md.GetMemberReference(h).Name));
        if (md.GetHeapSize(HeapIndex.UserString) > 1)
        {
            for (var h = MetadataTokens.UserStringHandle(1); !h.IsNil; h = md.GetNextHandle(h))
                Add(c, md.GetUserString(h));
        }
    }

    /// <summary>The validator's rules at their edges, one input each.</summary>
    public static void Edges(Corpora c)
    {
        (string Hex, string Feature)[] edges =
        [
            ("7F", "max_1"), ("C280", "min_2"), ("DFBF", "max_2"), ("E0A080", "min_3"),
            ("ED9FBF", "below_surrogates"), ("EE8080", "above_surrogates"), ("EFBFBF", "max_3"),
            ("F0908080", "min_4"), ("F48FBFBF", "max_4"), ("C080", "overlong_2"), ("C1BF", "overlong_2b"),
            ("E080 80", "overlong_3"), ("F08F BFBF", "overlong_4"), ("EDA080", "surrogate_high"),
            ("EDBFBF", "surrogate_low"), ("F4908080", "above_max"), ("F5808080", "lead_f5"),
            ("80", "lone_continuation"), ("F888808080", "five_bytes"), ("FE", "fe"), ("FF", "ff"),
            ("C328", "missing_continuation"), ("41C3", "cut_2"), ("E282", "cut_3"),
            ("F09F98", "cut_4"), ("4D0070", "nul"),
            ("00D84100", "utf16_high_then_ascii"), ("00DC00DC", "utf16_two_lows"),
            ("3DD800DE", "utf16_pair"), ("00D8FFDB", "utf16_high_high"), ("FFDB", "utf16_high_at_end"),
        ];
        foreach (var (hex, feature) in edges)
            c.Utf.Add(Convert.FromHexString(hex.Replace(" ", "")), ["edge:" + feature]);
    }
}
