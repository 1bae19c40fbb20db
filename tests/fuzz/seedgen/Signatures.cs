// Signature blobs of every kind a module holds (ECMA-335 II.23.2): MethodDefSig,
// MethodRefSig and field MemberRefs, FieldSig, PropertySig, LocalVarSig and
// StandAloneMethodSig, TypeSpec, MethodSpec; each goes to the harnesses that parse it.
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace AlvorKit.Fuzz.SeedGen;

internal static class Signatures
{
    /// <summary>Features of a blob: its lead byte, the constructor bytes it holds (PTR to
    /// MVAR, the modifiers, SENTINEL, PINNED) and which of them follow one another, i.e.
    /// its nesting; its length. Primitive element types and token bytes are left out.</summary>
    public static IEnumerable<string> Features(byte[] blob)
    {
        static bool Constructor(byte b) => b is (>= 0x0F and <= 0x20) or 0x41 or 0x45;
        yield return $"lead:{blob[0]:x2}";
        for (int i = 1; i < blob.Length; ++i)
        {
            if (!Constructor(blob[i]))
                continue;
            yield return $"b:{blob[i]:x2}";
            if (i + 1 < blob.Length && Constructor(blob[i + 1]))
                yield return $"p:{blob[i]:x2}{blob[i + 1]:x2}";
        }
    }

    private static void Offer(Corpus corpus, byte[] blob) => corpus.Add(blob, Features(blob));

    public static void Collect(MetadataReader md, Corpora c)
    {
        foreach (MethodDefinitionHandle h in md.MethodDefinitions)
        {
            byte[] sig = md.GetBlobBytes(md.GetMethodDefinition(h).Signature);
            Offer(c.SigMethod, sig);
            Offer(c.SigCompressed, sig);
        }
        foreach (MemberReferenceHandle h in md.MemberReferences)
        {
            MemberReference mr = md.GetMemberReference(h);
            byte[] sig = md.GetBlobBytes(mr.Signature);
            Offer(c.SigMemberRef, sig);
            if (mr.GetKind() == MemberReferenceKind.Method)
                Offer(c.SigMethod, sig);
            else
                Offer(c.SigField, sig);
        }
        foreach (FieldDefinitionHandle h in md.FieldDefinitions)
        {
            byte[] sig = md.GetBlobBytes(md.GetFieldDefinition(h).Signature);
            Offer(c.SigField, sig);
            Offer(c.SigType, [0, .. sig.AsSpan(1)]); // the field's Type, PINNED not allowed
        }
        foreach (PropertyDefinitionHandle h in md.PropertyDefinitions)
        {
            // No parser takes a PropertySig; after its lead byte it is shaped like a method
            // signature, so it seeds the method and StandAloneSig harnesses (refused as is).
            byte[] sig = md.GetBlobBytes(md.GetPropertyDefinition(h).Signature);
            Offer(c.SigMethod, sig);
            Offer(c.SigStandalone, sig);
        }
        for (int row = 1; row <= md.GetTableRowCount(TableIndex.StandAloneSig); ++row)
        {
            StandaloneSignatureHandle h = MetadataTokens.StandaloneSignatureHandle(row);
            StandaloneSignature ss = md.GetStandaloneSignature(h);
            byte[] sig = md.GetBlobBytes(ss.Signature);
            Offer(c.SigStandalone, sig);
            if (ss.GetKind() == StandaloneSignatureKind.LocalVariables)
                Offer(c.SigLocals, sig);
            else
                Offer(c.SigMethod, sig);
            Offer(c.SigCompressed, sig);
        }
        for (int row = 1; row <= md.GetTableRowCount(TableIndex.TypeSpec); ++row)
        {
            var handle = MetadataTokens.TypeSpecificationHandle(row);
            byte[] sig = md.GetBlobBytes(md.GetTypeSpecification(handle).Signature);
            Offer(c.SigTypeSpec, sig);
            Offer(c.SigType, [(byte)(row & 1), .. sig]); // start 0, PINNED allowed on odd rows
        }
        for (int row = 1; row <= md.GetTableRowCount(TableIndex.MethodSpec); ++row)
        {
            var handle = MetadataTokens.MethodSpecificationHandle(row);
            byte[] sig = md.GetBlobBytes(md.GetMethodSpecification(handle).Signature);
            Offer(c.SigMethodSpec, sig);
            Offer(c.SigCompressed, sig);
        }
    }
}
