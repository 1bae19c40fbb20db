using System.Buffers.Binary;

namespace AlvorKit.Interception.IL;

/// <summary>A method body's header (ECMA-335 II.25.4.2, II.25.4.3).</summary>
/// <param name="Fat">A fat header (a tiny one has no locals, no sections, max stack 8).</param>
/// <param name="CodeStart">Where the code starts: the header's size.</param>
/// <param name="CodeSize">The code's size.</param>
/// <param name="MaxStack">The header's max stack (8 for a tiny header).</param>
/// <param name="LocalsToken">The locals signature's token (0: none).</param>
/// <param name="InitLocals">The header's InitLocals flag.</param>
/// <param name="MoreSections">Exception sections follow the code.</param>
internal sealed record BodyHeader(bool Fat, int CodeStart, int CodeSize, int MaxStack, int LocalsToken, bool InitLocals,
                                  bool MoreSections)
{
    /// <summary>Where the first exception section starts (the code's end, 4-aligned).</summary>
    public int SectionsStart => MethodBodyFormat.Align4(CodeStart + CodeSize);
}

/// <summary>One exception clause as a body's EH section holds it (ECMA-335 II.25.4.6), in fat
/// form whatever its encoding.</summary>
/// <param name="Flags">0 typed catch, 1 filter, 2 finally, 4 fault.</param>
/// <param name="TryOffset">Where the protected block starts in the code.</param>
/// <param name="TryLength">Its length.</param>
/// <param name="HandlerOffset">Where the handler starts.</param>
/// <param name="HandlerLength">Its length.</param>
/// <param name="ClassToken">A typed catch's class token, or a filter's offset.</param>
/// <param name="ClassTokenAt">Where ClassToken's 4 bytes are in the body (to rewrite it in place).</param>
internal sealed record EhClause(uint Flags, int TryOffset, int TryLength, int HandlerOffset, int HandlerLength,
                                int ClassToken, int ClassTokenAt);

/// <summary>
/// The one reader of method bodies' layout on the managed side: the header, the body's size
/// and its exception sections with their clauses, numbered in the order the sections list them
/// (the numbering a catch-type relocation, ALVK_RELOCATION_CATCH_TYPE, uses). Hot reload reads
/// the compiler's bodies with it (HotReload/BodyRewriter.cs, HotReload/LoadedBody.cs) and a plan
/// checks the body it laid out (GenerationPlan.CheckCatchClauses). Every bound is checked; a
/// body that does not fit is refused as a BadImageFormatException.
/// </summary>
/// <remarks>
/// System.Reflection.Metadata's MethodBodyBlock reads the same format, but through a pointer
/// into pinned memory, and it does not say where a clause's class token lies: hot reload
/// rewrites those tokens in place, keeping each section's encoding. A loaded method's original
/// body comes from reflection (MethodBody.ExceptionHandlingClauses), which has no bytes to read.
/// </remarks>
internal static class MethodBodyFormat
{
    private const byte FatFormat = 0x3, TinyFormat = 0x2, MoreSects = 0x08, InitLocalsFlag = 0x10;
    private const byte SectionEHTable = 0x01, SectionFatFormat = 0x40, SectionMoreSects = 0x80;

    /// <summary>The header of the body at the start of <paramref name="body"/>, whose code must
    /// fit in it.</summary>
    public static BodyHeader Header(ReadOnlySpan<byte> body)
    {
        if (body.Length == 0)
            throw new BadImageFormatException("an empty method body");
        if ((body[0] & 0x3) == TinyFormat)
        {
            int tiny = body[0] >> 2;
            return 1 + tiny <= body.Length
                ? new BodyHeader(false, 1, tiny, 8, 0, false, false)
                : throw new BadImageFormatException("a tiny body past the end of the IL");
        }
        if ((body[0] & 0x3) != FatFormat || body.Length < 12)
            throw new BadImageFormatException("an unknown method header");
        int headerSize = (body[1] >> 4) * 4;
        uint codeSize = BinaryPrimitives.ReadUInt32LittleEndian(body[4..]);
        if (headerSize < 12 || headerSize + (long)codeSize > body.Length)
            throw new BadImageFormatException("a method header that does not fit the IL");
        return new BodyHeader(true, headerSize, (int)codeSize, BinaryPrimitives.ReadUInt16LittleEndian(body[2..]),
            BinaryPrimitives.ReadInt32LittleEndian(body[8..]), (body[0] & InitLocalsFlag) != 0, (body[0] & MoreSects) != 0);
    }

    /// <summary>The size of the body at the start of <paramref name="il"/> (header, code,
    /// exception sections), which may go on past it.</summary>
    public static int Size(ReadOnlySpan<byte> il)
    {
        BodyHeader header = Header(il);
        int end = header.CodeStart + header.CodeSize;
        var sections = new SectionWalk(il, header);
        while (sections.Next())
            end = sections.At + sections.DataSize;
        return end;
    }

    /// <summary>Every exception clause of <paramref name="body"/> (none for a tiny body), in
    /// the order its sections list them.</summary>
    public static List<EhClause> Clauses(ReadOnlySpan<byte> body) => Clauses(body, Header(body));

    /// <summary>The clauses, <paramref name="header"/> being the body's.</summary>
    public static List<EhClause> Clauses(ReadOnlySpan<byte> body, BodyHeader header)
    {
        var clauses = new List<EhClause>();
        var sections = new SectionWalk(body, header);
        while (sections.Next())
        {
            if ((sections.Kind & SectionEHTable) == 0)
                continue;
            bool fat = (sections.Kind & SectionFatFormat) != 0;
            int clauseSize = fat ? 24 : 12;
            for (int c = sections.At + 4; c + clauseSize <= sections.At + sections.DataSize; c += clauseSize)
            {
                ReadOnlySpan<byte> s = body.Slice(c, clauseSize);
                clauses.Add(fat
                    ? new EhClause(BinaryPrimitives.ReadUInt32LittleEndian(s), BinaryPrimitives.ReadInt32LittleEndian(s[4..]),
                                   BinaryPrimitives.ReadInt32LittleEndian(s[8..]), BinaryPrimitives.ReadInt32LittleEndian(s[12..]),
                                   BinaryPrimitives.ReadInt32LittleEndian(s[16..]), BinaryPrimitives.ReadInt32LittleEndian(s[20..]),
                                   c + 20)
                    : new EhClause(BinaryPrimitives.ReadUInt16LittleEndian(s), BinaryPrimitives.ReadUInt16LittleEndian(s[2..]),
                                   s[4], BinaryPrimitives.ReadUInt16LittleEndian(s[5..]), s[7],
                                   BinaryPrimitives.ReadInt32LittleEndian(s[8..]), c + 8));
            }
        }
        return clauses;
    }

    /// <summary>Rounds up to a multiple of 4 (sections start 4-aligned).</summary>
    public static int Align4(int value) => (value + 3) & ~3;

    // The exception sections one by one: where each starts, its kind byte and its data size
    // (its 4-byte header included), every bound checked against the body.
    private ref struct SectionWalk(ReadOnlySpan<byte> body, BodyHeader header)
    {
        private readonly ReadOnlySpan<byte> _body = body;
        private bool _more = header.MoreSections;
        private int _next = header.SectionsStart;

        public int At { get; private set; }

        public byte Kind { get; private set; }

        public int DataSize { get; private set; }

        public bool Next()
        {
            if (!_more)
                return false;
            int at = _next;
            if (at + 4 > _body.Length)
                throw new BadImageFormatException("an exception section past the end of the body");
            byte kind = _body[at];
            int dataSize = (kind & SectionFatFormat) != 0 ? _body[at + 1] | (_body[at + 2] << 8) | (_body[at + 3] << 16)
                : _body[at + 1];
            if (dataSize < 4 || at + dataSize > _body.Length)
                throw new BadImageFormatException("an exception section that does not fit the body");
            (At, Kind, DataSize) = (at, kind, dataSize);
            _more = (kind & SectionMoreSects) != 0;
            _next = Align4(at + dataSize);
            return true;
        }
    }
}
