using System.Buffers.Binary;

namespace AlvorKit.Interception.Plans;

/// <summary>One EH clause as a lowered body's sections hold it (ECMA-335 II.25.4.6).</summary>
internal readonly record struct EhClause(int Flags, int TryOffset, int HandlerOffset, int ClassToken);

/// <summary>
/// Reads the EH clauses of a fat method body the plan laid out, numbered in the order its
/// sections list them: the numbering a catch-type relocation (ALVK_RELOCATION_CATCH_TYPE) uses.
/// </summary>
internal static class EhClauses
{
    private const int MoreSects = 0x08, FatSection = 0x40, MoreSections = 0x80;

    /// <summary>Every clause of `body` (a fat body; a tiny one has none), in order.</summary>
    public static List<EhClause> Read(byte[] body)
    {
        var clauses = new List<EhClause>();
        if ((body[0] & 0x3) != 0x3 || (body[0] & MoreSects) == 0)
            return clauses;
        int headerSize = 4 * (body[1] >> 4);
        int at = Align4(headerSize + BinaryPrimitives.ReadInt32LittleEndian(body.AsSpan(4)));
        while (true)
        {
            byte kind = body[at];
            bool fat = (kind & FatSection) != 0;
            int size = fat ? body[at + 1] | (body[at + 2] << 8) | (body[at + 3] << 16) : body[at + 1];
            int clauseSize = fat ? 24 : 12;
            for (int c = at + 4; c + clauseSize <= at + size; c += clauseSize)
            {
                ReadOnlySpan<byte> p = body.AsSpan(c, clauseSize);
                clauses.Add(fat
                    ? new EhClause(BinaryPrimitives.ReadInt32LittleEndian(p), BinaryPrimitives.ReadInt32LittleEndian(p[4..]),
                        BinaryPrimitives.ReadInt32LittleEndian(p[12..]), BinaryPrimitives.ReadInt32LittleEndian(p[20..]))
                    : new EhClause(BinaryPrimitives.ReadUInt16LittleEndian(p), BinaryPrimitives.ReadUInt16LittleEndian(p[2..]),
                        BinaryPrimitives.ReadUInt16LittleEndian(p[5..]), BinaryPrimitives.ReadInt32LittleEndian(p[8..])));
            }
            if ((kind & MoreSections) == 0)
                return clauses;
            at = Align4(at + size);
        }
    }

    private static int Align4(int offset) => (offset + 3) & ~3;
}
