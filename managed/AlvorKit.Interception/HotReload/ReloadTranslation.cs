using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.HotReload;

/// <summary>One changed method's new body, translated for the loaded module.</summary>
/// <param name="Method">The method, as the comparison found it.</param>
/// <param name="Lowered">The generation that gives the loaded method its rebuilt body.</param>
internal sealed record TranslatedBody(MethodComparison Method, LoweredGeneration Lowered)
{
    /// <summary>Whether two generations are the same bytes (body, pool, relocations).</summary>
    public static bool SameBytes(LoweredGeneration a, LoweredGeneration b) =>
        a.Body.AsSpan().SequenceEqual(b.Body) && a.Pool.AsSpan().SequenceEqual(b.Pool) &&
        a.Relocations.Select(r => r with { Description = "" })
            .SequenceEqual(b.Relocations.Select(r => r with { Description = "" })) &&
        a.MaxStack == b.MaxStack;
}

/// <summary>
/// A rebuild compared with the loaded file and every changed body translated (ordinary and
/// compiler-generated methods alike), before anything is applied; or the refusals: rude
/// edits, generated members that do not map, references the loaded module cannot take, bodies
/// too large for a generation.
/// </summary>
internal sealed class ReloadTranslation
{
    private ReloadTranslation(AssemblyComparison comparison, IReadOnlyList<TranslatedBody> bodies,
                              IReadOnlyList<ReloadRefusal> refusals)
    {
        Comparison = comparison;
        Bodies = bodies;
        Refusals = refusals;
    }

    /// <summary>The comparison the translation followed.</summary>
    public AssemblyComparison Comparison { get; }

    /// <summary>Every method whose body changed, translated (empty when refused).</summary>
    public IReadOnlyList<TranslatedBody> Bodies { get; }

    /// <summary>Why the rebuild cannot be applied (empty when it can).</summary>
    public IReadOnlyList<ReloadRefusal> Refusals { get; }

    /// <summary>Compares and translates the files.</summary>
    public static ReloadTranslation Translate(string loadedPath, string rebuiltPath)
    {
        using FileStream loaded = File.OpenRead(loadedPath);
        using FileStream rebuilt = File.OpenRead(rebuiltPath);
        using var loadedImage = new PEReader(loaded, PEStreamOptions.PrefetchEntireImage);
        using var rebuiltImage = new PEReader(rebuilt, PEStreamOptions.PrefetchEntireImage);
        return Translate(loadedImage, rebuiltImage);
    }

    /// <summary>Compares and translates two images.</summary>
    public static ReloadTranslation Translate(PEReader loaded, PEReader rebuilt)
    {
        AssemblyComparison comparison = AssemblyComparer.Compare(loaded, rebuilt, out var sides);
        if (sides is not ({ } loadedSide, { } rebuiltSide))
            return new ReloadTranslation(comparison, [], [new ReloadRefusal(ReloadRefusalReason.NotARebuild,
                comparison.AssemblyName, $"{ReloadRefusalReason.NotARebuild}: {comparison.RefusalMessage}")]);

        var refusals = new List<ReloadRefusal>();
        foreach (MemberEdit edit in comparison.RudeEdits)
            refusals.Add(new ReloadRefusal(ReloadRefusalReason.RudeEdit, edit.Member,
                $"{edit.Message} — a body replacement cannot carry it; restart to take it"));
        foreach (MemberEdit edit in comparison.GeneratedChanges.Where(e => e.Kind != EditKind.BodyChanged))
            refusals.Add(GeneratedRefusal.For(edit));

        var loadedRows = new LoadedRows(loadedSide);
        var bodies = new List<TranslatedBody>();
        foreach (MethodComparison method in comparison.ChangedMethods)
        {
            MethodDefinition definition = rebuiltSide.Reader.GetMethodDefinition(
                MetadataTokens.MethodDefinitionHandle(method.RebuiltToken & 0xFFFFFF));
            try
            {
                bodies.Add(new TranslatedBody(method, BodyTranslator.Translate(loadedRows, rebuiltSide, definition,
                                                                               method.Member)));
            }
            catch (TranslationRefusedException e)
            {
                refusals.Add(e.Refusal);
            }
            catch (BadImageFormatException e)
            {
                refusals.Add(new ReloadRefusal(ReloadRefusalReason.NotARebuild, method.Member,
                    $"{ReloadRefusalReason.NotARebuild}: {method.Member} — its rebuilt body cannot be read: {e.Message}"));
            }
        }
        return refusals.Count > 0
            ? new ReloadTranslation(comparison, [], refusals.DistinctBy(r => r.Message).ToList())
            : new ReloadTranslation(comparison, bodies, []);
    }
}
