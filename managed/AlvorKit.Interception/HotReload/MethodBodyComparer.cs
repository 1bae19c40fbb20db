using System.Collections.Immutable;
using System.Globalization;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Compares two method bodies of two builds by what they do, not by their bytes: the IL is
/// walked instruction by instruction with <see cref="OpCodeTable"/>; opcodes, immediates and branch
/// offsets must be equal; a token operand must refer to the same thing (compared by
/// <see cref="MetadataNames"/>), a string literal must have the same value. Then the locals'
/// types, the exception clauses (offsets, kinds, catch types by name), max stack and the
/// init-locals flag.
/// </summary>
internal static class MethodBodyComparer
{
    /// <summary>The first difference between the bodies, or null when they are the same.</summary>
    public static string? Difference(BuildSide a, MethodDefinition methodA, BuildSide b, MethodDefinition methodB)
    {
        int rvaA = methodA.RelativeVirtualAddress, rvaB = methodB.RelativeVirtualAddress;
        if (rvaA == 0 || rvaB == 0)
            return (rvaA == 0) == (rvaB == 0) ? null : rvaA == 0 ? "a body where there was none" : "no body any more";
        MethodBodyBlock bodyA = a.Image.GetMethodBody(rvaA), bodyB = b.Image.GetMethodBody(rvaB);

        string? difference = CodeDifference(a, bodyA.GetILReader(), b, bodyB.GetILReader());
        if (difference is not null)
            return difference;

        ImmutableArray<string> localsA = a.Keys.Locals(bodyA.LocalSignature);
        ImmutableArray<string> localsB = b.Keys.Locals(bodyB.LocalSignature);
        if (!localsA.SequenceEqual(localsB, StringComparer.Ordinal))
            return $"locals ({string.Join(", ", a.Display.Locals(bodyA.LocalSignature))}) → " +
                   $"({string.Join(", ", b.Display.Locals(bodyB.LocalSignature))})";

        difference = RegionDifference(a, bodyA.ExceptionRegions, b, bodyB.ExceptionRegions);
        if (difference is not null)
            return difference;
        if (bodyA.MaxStack != bodyB.MaxStack)
            return $"max stack {bodyA.MaxStack} → {bodyB.MaxStack}";
        if (bodyA.LocalVariablesInitialized != bodyB.LocalVariablesInitialized)
            return $"init locals {bodyA.LocalVariablesInitialized} → {bodyB.LocalVariablesInitialized}";
        return null;
    }

    private static string? CodeDifference(BuildSide a, BlobReader codeA, BuildSide b, BlobReader codeB)
    {
        while (codeA.RemainingBytes > 0 && codeB.RemainingBytes > 0)
        {
            int offset = codeA.Offset;
            string at = "IL_" + offset.ToString("x4", CultureInfo.InvariantCulture);
            OpCode? opA = ReadOpCode(ref codeA), opB = ReadOpCode(ref codeB);
            if (opA is not OpCode opcode)
                return $"{at}: an opcode the table does not know";
            if (opB is null || opB.Value != opcode)
                return $"{at}: {opcode.Name} → {opB?.Name ?? "an opcode the table does not know"}";

            OperandType operand = opcode.OperandType;
            if (OpCodeTable.IsToken(operand))
            {
                int tokenA = codeA.ReadInt32(), tokenB = codeB.ReadInt32();
                string referentA = Referent(a.Keys, operand, tokenA), referentB = Referent(b.Keys, operand, tokenB);
                if (!string.Equals(referentA, referentB, StringComparison.Ordinal))
                    return $"{at}: {opcode.Name} {Referent(a.Display, operand, tokenA)} → " +
                           Referent(b.Display, operand, tokenB);
                continue;
            }
            int size = OpCodeTable.OperandSize(operand);
            if (operand == OperandType.InlineSwitch)
            {
                uint countA = codeA.ReadUInt32(), countB = codeB.ReadUInt32();
                if (countA != countB)
                    return $"{at}: switch with {countA} targets → {countB}";
                size = checked((int)(4 * countA));
            }
            if (size > codeA.RemainingBytes || size > codeB.RemainingBytes)
                return $"{at}: {opcode.Name}'s operand runs past the end of the code";
            ReadOnlySpan<byte> operandA = Bytes(ref codeA, size), operandB = Bytes(ref codeB, size);
            if (!operandA.SequenceEqual(operandB))
                return $"{at}: {opcode.Name} {Convert.ToHexString(operandA)} → {Convert.ToHexString(operandB)}";
        }
        return codeA.RemainingBytes == codeB.RemainingBytes
            ? null
            : $"IL_{codeA.Offset.ToString("x4", CultureInfo.InvariantCulture)}: the code is " +
              (codeA.RemainingBytes > 0 ? "shorter" : "longer");
    }

    private static OpCode? ReadOpCode(ref BlobReader code)
    {
        byte first = code.ReadByte();
        if (first != OpCodeTable.TwoBytePrefix)
            return OpCodeTable.Find(first, 0);
        return code.RemainingBytes > 0 ? OpCodeTable.Find(first, code.ReadByte()) : null;
    }

    private static unsafe ReadOnlySpan<byte> Bytes(ref BlobReader code, int size)
    {
        var span = new ReadOnlySpan<byte>(code.CurrentPointer, size);
        code.Offset += size;
        return span;
    }

    /// <summary>What a token operand refers to: a user string's value (quoted), or the named
    /// type, member or signature.</summary>
    private static string Referent(MetadataNames names, OperandType operand, int token)
    {
        if (operand == OperandType.InlineString)
        {
            UserStringHandle handle = MetadataTokens.UserStringHandle(token & 0xFFFFFF);
            return "\"" + names.Reader.GetUserString(handle) + "\"";
        }
        return names.Token(MetadataTokens.EntityHandle(token));
    }

    private static string? RegionDifference(BuildSide a, ImmutableArray<ExceptionRegion> regionsA, BuildSide b,
                                            ImmutableArray<ExceptionRegion> regionsB)
    {
        if (regionsA.Length != regionsB.Length)
            return $"{regionsA.Length} exception clauses → {regionsB.Length}";
        for (int i = 0; i < regionsA.Length; i++)
        {
            ExceptionRegion x = regionsA[i], y = regionsB[i];
            if (x.Kind != y.Kind || x.TryOffset != y.TryOffset || x.TryLength != y.TryLength ||
                x.HandlerOffset != y.HandlerOffset || x.HandlerLength != y.HandlerLength ||
                (x.Kind == ExceptionRegionKind.Filter && x.FilterOffset != y.FilterOffset))
                return $"exception clause {i}: {Describe(x)} → {Describe(y)}";
            if (x.Kind == ExceptionRegionKind.Catch &&
                !string.Equals(a.Keys.Type(x.CatchType), b.Keys.Type(y.CatchType), StringComparison.Ordinal))
                return $"exception clause {i}: catch {a.Display.Type(x.CatchType)} → {b.Display.Type(y.CatchType)}";
        }
        return null;
    }

    private static string Describe(ExceptionRegion region) =>
        $"{region.Kind.ToString().ToLowerInvariant()} try {region.TryOffset}+{region.TryLength} " +
        $"handler {region.HandlerOffset}+{region.HandlerLength}" +
        (region.Kind == ExceptionRegionKind.Filter ? $" filter {region.FilterOffset}" : "");
}
