// Generations for the validation harness, made from real method bodies: every token
// operand that names a MemberRef, TypeSpec, MethodSpec, calli StandAloneSig or TypeRef
// becomes a relocation carrying that row's parent, name and signature blob, parents
// alternately as existing tokens and as earlier relocations (emitted with no operand when
// the body does not use them); a fat body's locals signature becomes the
// LOCALS_SIGNATURE relocation; the first instruction starts form an identity IL map.
// Encoded in the layout documented at the top of tests/fuzz/fuzz_generation.c.
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;

namespace AlvorKit.Fuzz.SeedGen;

internal static class Generations
{
    private const int MaxRelocations = 64;
    private const uint NoOperand = 0xFFFFFFFF, LocalsSignature = 0xFFFFFFFE;
    private const uint StandaloneSig = 1, TypeSpec = 2, MemberRef = 3, MethodSpec = 4, TypeRef = 5;

    private record struct Relocation(uint Kind, uint IlOffset, uint ParentToken, uint ParentRelocation,
                             uint NameOffset, uint NameLength, uint BlobOffset, uint BlobLength);

    private sealed class Builder(MetadataReader md, bool parentsAsRelocations)
    {
        private readonly List<byte> _pool = new();
        private readonly Dictionary<string, uint> _pooled = new();
        private readonly Dictionary<int, int> _byToken = new(); // token -> its first relocation
        public List<Relocation> Relocations { get; } = new();
        public byte[] Pool => _pool.ToArray();
        public HashSet<string> Features { get; } = new();

        private (uint Offset, uint Length) Put(byte[] bytes)
        {
            if (bytes.Length == 0)
                return (0, 0);
            string key = Convert.ToHexString(bytes);
            if (!_pooled.TryGetValue(key, out uint at))
            {
                at = (uint)_pool.Count;
                _pool.AddRange(bytes);
                _pooled[key] = at;
            }
            return (at, (uint)bytes.Length);
        }

        /// <summary>Adds the relocation for token at ilOffset; false when the token's table
        /// has no relocation kind or the bound is reached.</summary>
        public bool Add(int token, uint ilOffset)
        {
            if (Relocations.Count >= MaxRelocations)
                return false;
            EntityHandle handle = MetadataTokens.EntityHandle(token);
            uint parentToken = 0, parentRelocation = 0, kind;
            byte[] name = [], blob;
            switch (handle.Kind)
            {
                case HandleKind.MemberReference:
                {
                    MemberReference mr = md.GetMemberReference((MemberReferenceHandle)handle);
                    kind = MemberRef;
                    name = System.Text.Encoding.UTF8.GetBytes(md.GetString(mr.Name));
                    blob = md.GetBlobBytes(mr.Signature);
                    (parentToken, parentRelocation) =
                        Parent(mr.Parent, HandleKind.TypeSpecification, HandleKind.TypeReference);
                    break;
                }
                case HandleKind.MethodSpecification:
                {
                    MethodSpecification ms = md.GetMethodSpecification((MethodSpecificationHandle)handle);
                    kind = MethodSpec;
                    blob = md.GetBlobBytes(ms.Signature);
                    (parentToken, parentRelocation) = Parent(ms.Method, HandleKind.MemberReference);
                    break;
                }
                case HandleKind.TypeSpecification:
                    kind = TypeSpec;
                    blob = md.GetBlobBytes(md.GetTypeSpecification((TypeSpecificationHandle)handle).Signature);
                    break;
                case HandleKind.StandaloneSignature:
                    kind = StandaloneSig;
                    blob = md.GetBlobBytes(md.GetStandaloneSignature((StandaloneSignatureHandle)handle).Signature);
                    break;
                case HandleKind.TypeReference:
                {
                    TypeReference tr = md.GetTypeReference((TypeReferenceHandle)handle);
                    if (tr.ResolutionScope.IsNil)
                        return false;
                    kind = TypeRef;
                    string ns = md.GetString(tr.Namespace), simple = md.GetString(tr.Name);
                    name = System.Text.Encoding.UTF8.GetBytes(ns.Length > 0 ? $"{ns}.{simple}" : simple);
                    blob = [];
                    (parentToken, parentRelocation) = Parent(tr.ResolutionScope, HandleKind.TypeReference);
                    break;
                }
                default:
                    return false;
            }
            if (parentToken == 0 && parentRelocation == 0 && kind is MemberRef or MethodSpec or TypeRef)
                return false; // the parent could not be relocated within the bound
            if (Relocations.Count >= MaxRelocations)
                return false;
            var (nameOffset, nameLength) = Put(name);
            var (blobOffset, blobLength) = Put(blob);
            Relocations.Add(new Relocation(kind, ilOffset, parentToken, parentRelocation, nameOffset,
                                           nameLength, blobOffset, blobLength));
            _byToken.TryAdd(token, Relocations.Count - 1);
            Features.Add($"kind:{kind}");
            Features.Add($"parent:{kind}:{(parentRelocation != 0 ? "relocation" : parentToken >> 24)}");
            if (ilOffset == NoOperand)
                Features.Add($"no_operand:{kind}");
            return true;
        }

        /// <summary>A parent as a token, or (when chosen and its kind can be one) as an earlier
        /// relocation, added now with no operand if the body has none for it.</summary>
        private (uint Token, uint Relocation) Parent(EntityHandle parent, params HandleKind[] relocatable)
        {
            int token = MetadataTokens.GetToken(parent);
            if (!parentsAsRelocations || !relocatable.Contains(parent.Kind))
                return ((uint)token, 0);
            if (parent.Kind == HandleKind.MemberReference &&
                md.GetMemberReference((MemberReferenceHandle)parent).GetKind() != MemberReferenceKind.Method)
                return ((uint)token, 0);
            if (!_byToken.TryGetValue(token, out int index))
            {
                if (!Add(token, NoOperand))
                    return (0, 0);
                index = Relocations.Count - 1;
            }
            return (0, (uint)index + 1);
        }
    }

    public static void Collect(PEReader pe, MetadataReader md, Corpora c)
    {
        int row = 0;
        foreach (MethodDefinitionHandle h in md.MethodDefinitions)
        {
            ++row;
            var read = Bodies.Read(pe, md.GetMethodDefinition(h));
            if (read == null)
                continue;
            var (raw, body) = read.Value;
            byte[] code = body.GetILBytes() ?? [];
            List<Instruction>? walk = Il.Walk(code);
            if (walk == null)
                continue;
            var builder = new Builder(md, parentsAsRelocations: row % 2 == 1);
            if (!body.LocalSignature.IsNil)
                builder.Add(MetadataTokens.GetToken(body.LocalSignature), LocalsSignature);
            foreach (Instruction insn in walk)
            {
                if (!Il.IsToken(insn.Operand) || insn.Operand == System.Reflection.Emit.OperandType.InlineString)
                    continue;
                int token = BitConverter.ToInt32(code, insn.OperandOffset);
                if (builder.Add(token, (uint)insn.OperandOffset))
                    builder.Features.Add($"operand:{insn.Operand}");
            }
            if (builder.Relocations.Count == 0)
                continue;
            var map = walk.Take(8).Select(i => (uint)i.Offset).ToList();
            byte[] pool = builder.Pool;
            var input = new Inputs()
                .U8(0).U8(builder.Relocations.Count).U16(map.Count)
                .U32((uint)raw.Length).U32((uint)pool.Length)
                .U32(0).U32(0).U64(1).U64(0).U32(0).U32(0)
                .U32((uint)code.Length)
                .Bytes(raw).Bytes(pool);
            foreach (Relocation r in builder.Relocations)
                input.U32(36).U32(r.Kind).U32(r.IlOffset).U32(r.ParentToken).U32(r.ParentRelocation)
                     .U32(r.NameOffset).U32(r.NameLength).U32(r.BlobOffset).U32(r.BlobLength);
            foreach (uint offset in map)
                input.U32(offset).U32(offset).U32(1);
            builder.Features.Add(raw[0] % 4 == 3 ? "fat" : "tiny");
            builder.Features.Add($"eh:{body.ExceptionRegions.Length > 0}");
            c.Generation.Add(input.ToArray(), builder.Features);
        }
    }
}
