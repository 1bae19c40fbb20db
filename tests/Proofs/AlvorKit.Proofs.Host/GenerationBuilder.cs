using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Text;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// One generation's inputs, assembled in managed memory: the code (an InstructionEncoder over
/// a BlobBuilder) under a fat header, optional EH sections, a blob pool with the relocations'
/// UTF-8 names and signature blobs, the relocations (each filling the 4-byte token operand
/// of one instruction, where a placeholder token was written) and an IL map. Submit pins
/// everything for alvk_generation_submit, which copies it.
/// </summary>
internal sealed class GenerationBuilder
{
    private const ushort FatFormat = 0x3, MoreSects = 0x8, InitLocals = 0x10;

    private readonly BlobBuilder _code = new();
    private readonly BlobBuilder _pool = new();
    private readonly BlobBuilder _sections = new();
    private readonly List<SubmittedRelocation> _described = [];
    private bool _locals;

    public GenerationBuilder(int maxStack = 8)
    {
        IL = new InstructionEncoder(_code);
        MaxStack = maxStack;
    }

    /// <summary>The code: opcodes and operands, written from offset 0 (after the header).</summary>
    public InstructionEncoder IL { get; }

    public int MaxStack { get; }

    public List<AlvkRelocation> Relocations { get; } = [];

    public List<AlvkILMapEntry> ILMap { get; } = [];

    /// <summary>The table of the token each relocation kind makes (the placeholder's high byte).</summary>
    public static uint TableOf(AlvkRelocationKind kind) => kind switch
    {
        AlvkRelocationKind.StandAloneSig => 0x11,
        AlvkRelocationKind.TypeSpec => 0x1B,
        AlvkRelocationKind.MemberRef => 0x0A,
        AlvkRelocationKind.MethodSpec => 0x2B,
        AlvkRelocationKind.TypeRef => 0x01,
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, null),
    };

    /// <summary>A relocation whose token no instruction takes directly (a parent); returns its
    /// 1-based index for parent_relocation.</summary>
    public uint Reference(AlvkRelocationKind kind, byte[]? blob = null, string? name = null, uint parentToken = 0,
        uint parentRelocation = 0) =>
        Add(kind, AlvkConstants.RelocationNoOperand, blob, name, parentToken, parentRelocation);

    /// <summary>`opcode` with a placeholder token, and the relocation that fills it; returns the
    /// relocation's 1-based index.</summary>
    public uint Emit(ILOpCode opcode, AlvkRelocationKind kind, byte[]? blob = null, string? name = null,
        uint parentToken = 0, uint parentRelocation = 0)
    {
        IL.OpCode(opcode);
        uint operand = (uint)IL.Offset;
        IL.Token((int)(TableOf(kind) << 24));
        return Add(kind, operand, blob, name, parentToken, parentRelocation);
    }

    /// <summary>`opcode` with a token the module already has (no relocation).</summary>
    public void EmitExisting(ILOpCode opcode, int token)
    {
        IL.OpCode(opcode);
        IL.Token(token);
    }

    /// <summary>Locals (zero-initialized): a StandAloneSig relocation for the local variable
    /// signature fills the header's LocalVarSigTok; returns its 1-based index.</summary>
    public uint Locals(byte[] signature)
    {
        _locals = true;
        return Add(AlvkRelocationKind.StandAloneSig, AlvkConstants.RelocationLocalsSignature, signature, null, 0, 0);
    }

    /// <summary>The offset of the token operand relocation `index` (1-based) fills.</summary>
    public uint OperandOf(uint index) => Relocations[(int)index - 1].ILOffset;

    public void Map(uint oldOffset, uint newOffset, bool accurate = true) =>
        ILMap.Add(new AlvkILMapEntry { OldOffset = oldOffset, NewOffset = newOffset, Accurate = accurate ? 1u : 0u });

    /// <summary>A small EH section with one clause (ECMA-335 II.25.4.6), after the code.</summary>
    public void SmallClause(ushort flags, ushort tryOffset, byte tryLength, ushort handlerOffset, byte handlerLength,
        uint classToken)
    {
        _sections.WriteByte(0x01); // CorILMethod_Sect_EHTable, small, last
        _sections.WriteByte(4 + 12);
        _sections.WriteUInt16(0);
        _sections.WriteUInt16(flags);
        _sections.WriteUInt16(tryOffset);
        _sections.WriteByte(tryLength);
        _sections.WriteUInt16(handlerOffset);
        _sections.WriteByte(handlerLength);
        _sections.WriteUInt32(classToken);
    }

    /// <summary>The complete method body: fat header, code, and the sections 4-byte aligned.</summary>
    public byte[] Body()
    {
        var body = new BlobBuilder();
        bool sections = _sections.Count > 0;
        body.WriteUInt16((ushort)((3 << 12) | FatFormat | (sections ? MoreSects : 0) | (_locals ? InitLocals : 0)));
        body.WriteUInt16((ushort)MaxStack);
        body.WriteInt32(_code.Count);
        body.WriteUInt32(0); // LocalVarSigTok: none, or the placeholder Locals' relocation fills
        body.WriteBytes(_code.ToArray());
        if (sections)
        {
            body.Align(4);
            body.WriteBytes(_sections.ToArray());
        }
        return body.ToArray();
    }

    public byte[] Pool() => _pool.ToArray();

    /// <summary>Adds bytes to the pool without a relocation; gives their offset and length.</summary>
    public (uint Offset, uint Length) Pooled(byte[] bytes)
    {
        var at = (uint)_pool.Count;
        _pool.WriteBytes(bytes);
        return (at, (uint)bytes.Length);
    }

    /// <summary>What was submitted, for the report: each relocation with its name and blob.</summary>
    public IReadOnlyList<SubmittedRelocation> Describe() => [.. _described];

    public delegate void Mutate(ref AlvkGeneration generation);

    private delegate AlvkStatus Call(in AlvkGeneration generation);

    /// <summary>alvk_generation_submit for `target` (its loaded-body identity comes from
    /// alvk_describe_method), with everything pinned for the call. `body` replaces Body();
    /// `mutate` edits the filled struct last; `size` and `relocationSize` override the Size
    /// fields the binding sets (tests).</summary>
    public AlvkStatus Submit(ProfilerLibrary library, in AlvkMethodDescription target, ulong prior, ulong owner,
        out ulong handle, out ulong id, byte[]? body = null, Mutate? mutate = null, uint? size = null,
        uint? relocationSize = null)
    {
        ulong h = 0, g = 0;
        AlvkStatus status = Pinned(target, prior, owner, body, mutate,
            (in AlvkGeneration generation) => library.GenerationSubmit(generation, out h, out g, size, relocationSize));
        handle = h;
        id = g;
        return status;
    }

    /// <summary>alvk_generation_validate of what Submit would submit.</summary>
    public AlvkStatus Validate(ProfilerLibrary library, in AlvkMethodDescription target, ulong prior, ulong owner,
        out uint failingIndex, byte[]? body = null, Mutate? mutate = null, uint? size = null,
        uint? relocationSize = null)
    {
        uint f = 0;
        AlvkStatus status = Pinned(target, prior, owner, body, mutate,
            (in AlvkGeneration generation) => library.GenerationValidate(generation, out f, size, relocationSize));
        failingIndex = f;
        return status;
    }

    private unsafe AlvkStatus Pinned(in AlvkMethodDescription target, ulong prior, ulong owner, byte[]? body,
        Mutate? mutate, Call call)
    {
        body ??= Body();
        byte[] pool = Pool();
        AlvkRelocation[] relocations = [.. Relocations];
        AlvkILMapEntry[] map = [.. ILMap];
        fixed (byte* b = body)
        fixed (byte* p = pool)
        fixed (AlvkRelocation* r = relocations)
        fixed (AlvkILMapEntry* m = map)
        {
            AlvkGeneration generation = AlvkGeneration.For(target, prior, owner);
            generation.Body = b;
            generation.BodySize = (uint)body.Length;
            generation.Blobs = p;
            generation.BlobsSize = (uint)pool.Length;
            generation.Relocations = r;
            generation.RelocationCount = (uint)relocations.Length;
            generation.ILMap = m;
            generation.ILMapCount = (uint)map.Length;
            mutate?.Invoke(ref generation);
            return call(generation);
        }
    }

    private uint Add(AlvkRelocationKind kind, uint ilOffset, byte[]? blob, string? name, uint parentToken,
        uint parentRelocation)
    {
        var relocation = new AlvkRelocation
        {
            Kind = kind, // Size: set by ProfilerLibrary.GenerationSubmit
            ILOffset = ilOffset,
            ParentToken = parentToken,
            ParentRelocation = parentRelocation,
        };
        if (name is not null)
            (relocation.NameOffset, relocation.NameLength) = Pooled(Encoding.UTF8.GetBytes(name));
        if (blob is not null)
            (relocation.BlobOffset, relocation.BlobLength) = Pooled(blob);
        Relocations.Add(relocation);
        _described.Add(new SubmittedRelocation(kind.ToString(), ilOffset, parentToken, parentRelocation, name,
            blob is null ? null : Convert.ToHexString(blob)));
        return (uint)Relocations.Count;
    }
}

/// <summary>Signature blobs and tokens of the host's own metadata, read with
/// System.Reflection.Metadata, and blobs built with its encoders.</summary>
internal sealed class HostMetadata : IDisposable
{
    private readonly System.Reflection.PortableExecutable.PEReader _pe;

    public HostMetadata()
    {
        _pe = new System.Reflection.PortableExecutable.PEReader(File.OpenRead(typeof(HostMetadata).Assembly.Location));
        Reader = _pe.GetMetadataReader();
    }

    public MetadataReader Reader { get; }

    /// <summary>The MethodDefSig blob of a method of this module, and its metadata name.</summary>
    public (byte[] Blob, string Name) MethodSignature(System.Reflection.MethodBase method)
    {
        MethodDefinition def = Reader.GetMethodDefinition((MethodDefinitionHandle)MetadataTokens.Handle(method.MetadataToken));
        return (Reader.GetBlobBytes(def.Signature), Reader.GetString(def.Name));
    }

    /// <summary>The token of the module's AssemblyRef with this simple name.</summary>
    public uint AssemblyRef(string name)
    {
        foreach (AssemblyReferenceHandle h in Reader.AssemblyReferences)
            if (Reader.GetString(Reader.GetAssemblyReference(h).Name) == name)
                return (uint)MetadataTokens.GetToken(h);
        throw new InvalidOperationException($"no AssemblyRef {name}");
    }

    public void Dispose() => _pe.Dispose();

    public static byte[] Blob(Action<BlobEncoder> encode)
    {
        var builder = new BlobBuilder();
        encode(new BlobEncoder(builder));
        return builder.ToArray();
    }

    /// <summary>TypeSpec GENERICINST CLASS `genericType` with one argument.</summary>
    public static byte[] GenericInstance(Type genericType, Action<SignatureTypeEncoder> argument) => Blob(e =>
    {
        GenericTypeArgumentsEncoder args = e.TypeSpecificationSignature().GenericInstantiation(
            (TypeDefinitionHandle)MetadataTokens.EntityHandle(genericType.MetadataToken), 1, isValueType: false);
        argument(args.AddArgument());
    });

    /// <summary>A static method signature int32(int32) with the given calling convention.</summary>
    public static byte[] IntToInt(SignatureCallingConvention convention = SignatureCallingConvention.Default) =>
        Blob(e => e.MethodSignature(convention).Parameters(1, r => r.Type().Int32(), p => p.AddParameter().Type().Int32()));
}
