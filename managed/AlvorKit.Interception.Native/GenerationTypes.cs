using System.Runtime.InteropServices;

namespace AlvorKit.Interception.Native;

/// <summary>alvk_relocation_kind: what a relocation stands for, and which token it makes.</summary>
public enum AlvkRelocationKind : int
{
    /// <summary>blob: a method signature (calli) or a local variable signature.</summary>
    StandAloneSig = 1,
    /// <summary>blob: a TypeSpec signature (a generic instantiation, an array, a pointer...).</summary>
    TypeSpec = 2,
    /// <summary>parent, name and blob: a method or field signature; the token is a MemberRef.</summary>
    MemberRef = 3,
    /// <summary>parent (a MethodDef or MemberRef) and blob: a MethodSpec instantiation.</summary>
    MethodSpec = 4,
    /// <summary>parent (an AssemblyRef, ModuleRef or enclosing TypeRef) and "Namespace.Type".</summary>
    TypeRef = 5,
}

/// <summary>alvk_generation_state.</summary>
public enum AlvkGenerationState : int
{
    Pending = 0,
    Requested = 1,
    Active = 2,
    Superseded = 3,
    Failed = 4,
    Rejected = 5,
}

/// <summary>alvk_relocation, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
public struct AlvkRelocation
{
    /// <summary>ALVK_RELOCATION_NO_OPERAND: emitted, but its token is written nowhere in the body.</summary>
    public const uint NoOperand = 0xFFFF_FFFF;

    /// <summary>ALVK_RELOCATION_LOCALS_SIGNATURE: a StandAloneSig local variable signature that
    /// fills the fat header's LocalVarSigTok.</summary>
    public const uint LocalsSignature = 0xFFFF_FFFE;

    public uint Size;
    public AlvkRelocationKind Kind;
    public uint ILOffset;
    public uint ParentToken;
    public uint ParentRelocation;
    public uint NameOffset;
    public uint NameLength;
    public uint BlobOffset;
    public uint BlobLength;
}

/// <summary>alvk_il_map_entry (COR_IL_MAP), field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
public struct AlvkIlMapEntry
{
    public uint OldOffset;
    public uint NewOffset;
    public uint Accurate;
}

/// <summary>alvk_generation, field for field. The pointers must stay valid (pinned) for the
/// duration of alvk_generation_submit, which copies what they point to.</summary>
[StructLayout(LayoutKind.Sequential)]
public unsafe struct AlvkGeneration
{
    public const int MaxBodyBytes = 65536;
    public const int MaxBlobBytes = 65536;
    public const int MaxRelocations = 64;
    public const int MaxILMapEntries = 4096;

    public uint Size;
    public uint MethodToken;
    public AlvkMvid ModuleMvid;
    public fixed byte ExpectedBodyIdentity[32];
    public ulong PriorGeneration;
    public ulong Owner;
    public byte* Body;
    public byte* Blobs;
    public AlvkRelocation* Relocations;
    public AlvkIlMapEntry* ILMap;
    public uint BodySize;
    public uint BlobsSize;
    public uint RelocationCount;
    public uint ILMapCount;
    public AlvkInstallFlags Flags;
    public uint Reserved;

    /// <summary>A generation for the method `target` describes, with its loaded-body identity
    /// copied; the caller fills the pointers and counts.</summary>
    public static AlvkGeneration For(in AlvkMethodDescription target, ulong priorGeneration, ulong owner,
        AlvkInstallFlags flags = AlvkInstallFlags.None)
    {
        AlvkGeneration generation = default;
        generation.Size = (uint)sizeof(AlvkGeneration);
        generation.MethodToken = target.MethodToken;
        generation.ModuleMvid = target.ModuleMvid;
        fixed (byte* body = target.BodyIdentity)
            new ReadOnlySpan<byte>(body, 32).CopyTo(new Span<byte>(generation.ExpectedBodyIdentity, 32));
        generation.PriorGeneration = priorGeneration;
        generation.Owner = owner;
        generation.Flags = flags;
        return generation;
    }
}

/// <summary>alvk_relocation_result, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
public struct AlvkRelocationResult
{
    public uint Size;
    public AlvkRelocationKind Kind;
    public uint Token;
    public uint Reused;
    public int HResult;
}

/// <summary>alvk_generation_result, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
public struct AlvkGenerationResult
{
    public uint Size;
    public AlvkGenerationState State;
    public AlvkStatus Status;
    public uint RelocationCount;
    public ulong Generation;
    public ulong PriorGeneration;
    public uint FailingIndex;
    public int MetadataHResult;
    public int ILMapHResult;
    public int CompilationHResult;
    public ulong ElapsedNs;
}
