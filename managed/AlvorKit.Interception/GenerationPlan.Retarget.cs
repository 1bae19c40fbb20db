using System.Reflection;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception;

// A plan for one method that starts from ANOTHER method's original body (a reverse patch's stub).
public sealed partial class GenerationPlan
{
    /// <summary>
    /// A plan whose target is <paramref name="into"/> and whose instructions, locals and exception regions are
    /// <paramref name="source"/>'s original body: every instruction is named by its symbol (never by a token of
    /// the source's module), so lowering re-resolves each in <paramref name="into"/>'s module (its TypeDefs and
    /// MemberDefs, or TypeRef/MemberRef/MethodSpec relocations through AssemblyRefs); the locals signature is
    /// written afresh. The arguments are used as they are: <paramref name="into"/> takes the source's receiver
    /// (if any) first, then its parameters. No IL map: the source's offsets mean nothing in the stub.
    /// </summary>
    internal static GenerationPlan FromOriginalOf(MethodBase source, MethodBase into)
    {
        var plan = new GenerationPlan(into);
        source = TargetDefinition.Of(source);
        var reader = new OriginalBodyReader(source, ModuleContext.For(source.Module));
        foreach (OriginalLocal local in reader.Locals)
            plan._locals.Add(new PlanLocal(plan, plan._locals.Count, local.Type, local.Pinned));
        OriginalBody read = reader.Read(plan.DefineLabel, plan._locals);
        // The stub's own reader: the instructions' Source differs from it, so none keeps a source token.
        var body = new OriginalBody(new OriginalBodyReader(plan.Target, plan._module))
        {
            LocalCount = 0,
            LocalSignatureToken = 0,
            LocalEntries = [],
            MaxStack = read.MaxStack,
            InitLocals = read.InitLocals,
        };
        foreach (BodyInstruction instruction in read.Instructions)
        {
            instruction.OriginalOffset = null;
            body.Instructions.Add(instruction);
        }
        body.Regions.AddRange(read.Regions);
        body.Pending.AddRange(read.Pending);
        plan._original = body;
        return plan;
    }
}
