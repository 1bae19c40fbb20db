using System.Reflection.Emit;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception;

// ldtoken of the running instantiation: the target's declaring type, or the target, over its own
// generic parameters (no reflection symbol can say "Bag<T> over its own T").
public sealed partial class GenerationPlan
{
    /// <summary>ldtoken of <paramref name="own"/>: at run time, the instantiation of the target (or of its
    /// declaring type) that runs the body, shared canonical code included (the generic context resolves it).</summary>
    /// <exception cref="PlanException">The operand is neither the target (a definition) nor its declaring type
    /// definition, or the target is not generic.</exception>
    internal void EmitOwnInstantiation(OwnInstantiation own)
    {
        ArgumentNullException.ThrowIfNull(own);
        OpCode opcode = OpCodes.Ldtoken;
        if (Appending)
        {
            Append(opcode, own);
            return;
        }
        string use = Use(opcode, own.ToString());
        Operand operand = _symbols.OwnInstantiation(own.Definition, use);
        // The stack-type check reads a Type as a RuntimeTypeHandle, a method as a RuntimeMethodHandle.
        Record(opcode, own.Definition);
        Token(opcode, operand);
        Account(opcode);
        List(opcode, own.ToString(), operand);
    }
}
