using System.Collections.Immutable;
using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using Xunit;
using Xunit.Abstractions;

namespace AlvorKit.Hooks.Tests;

/// <summary>
/// GenerationPlan.FromOriginal without a runtime: every method with a body of a few real assemblies
/// read, lowered (replay, stack-type check, limits) and compared with its original instruction by
/// instruction; then the edits' own rules (closed generic targets, prefixes, all-or-nothing edits,
/// struct-value loads, copied instructions, InitLocals, ILOffset and RelocationCount).
/// </summary>
public sealed class PlanRoundTripTests(ITestOutputHelper output)
{
    private static readonly Dictionary<short, OpCode> OpCodeByValue = typeof(OpCodes)
        .GetFields(BindingFlags.Public | BindingFlags.Static)
        .Select(f => (OpCode)f.GetValue(null)!)
        .ToDictionary(o => o.Value);

    [Fact]
    public void EveryMethodOfRealAssembliesRoundTrips()
    {
        Assembly[] assemblies =
        [
            typeof(Enumerable).Assembly,                                          // System.Linq
            typeof(LinkedList<>).Assembly,                                        // System.Collections
            typeof(System.Text.RegularExpressions.Regex).Assembly,                // System.Text.RegularExpressions
            typeof(GenerationPlan).Assembly,                                      // AlvorKit.Interception
            typeof(PlanRoundTripTests).Assembly,                                  // these tests
            typeof(object).Assembly,                                              // System.Private.CoreLib
        ];
        var watch = System.Diagnostics.Stopwatch.StartNew();
        int methods = 0, same = 0, skipLocalsInit = 0, withRegions = 0;
        var refused = new Dictionary<string, int>();
        var crashes = new List<string>();
        var differences = new List<string>();
        foreach (Assembly assembly in assemblies)
        {
            using var pe = new PEReader(File.OpenRead(assembly.Location));
            MetadataReader reader = pe.GetMetadataReader();
            foreach (MethodBase method in DeclaredMethods.Of(assembly))
            {
                if (method.GetMethodBody() is null)
                    continue;
                methods++;
                MethodDefinition definition = reader.GetMethodDefinition(
                    (MethodDefinitionHandle)MetadataTokens.EntityHandle(method.MetadataToken));
                MethodBodyBlock original = pe.GetMethodBody(definition.RelativeVirtualAddress);
                GenerationPlan plan;
                byte[] body;
                try
                {
                    plan = GenerationPlan.FromOriginal(method);
                    body = plan.Lower().Body;
                }
                catch (Exception e) when (e is PlanException or StackTypeMismatchException or NotSupportedException)
                {
                    Assert.False(string.IsNullOrWhiteSpace(e.Message));
                    string kind = $"{e.GetType().Name}: {Kind(e.Message)}";
                    refused[kind] = refused.GetValueOrDefault(kind) + 1;
                    continue;
                }
#pragma warning disable CA1031 // a crash is what this test looks for: recorded, then failed on
                catch (Exception e)
#pragma warning restore CA1031
                {
                    crashes.Add($"{method.DeclaringType}::{method}: {e.GetType().Name}: {e.Message}");
                    continue;
                }
                if (Compare(Body.Of(original), Body.Of(body)) is { } difference)
                    differences.Add($"{method.DeclaringType}::{method}: {difference}");
                else
                    same++;
                skipLocalsInit += original.LocalVariablesInitialized ? 0 : 1;
                withRegions += original.ExceptionRegions.Length > 0 ? 1 : 0;
            }
        }
        output.WriteLine($"{methods} methods with a body, {same} round-trip exactly ({skipLocalsInit} of them " +
                         $"[SkipLocalsInit], {withRegions} with exception regions), in {watch.Elapsed.TotalSeconds:F1} s");
        foreach ((string kind, int count) in refused.OrderByDescending(p => p.Value))
            output.WriteLine($"  refused {count}: {kind}");
        foreach (string line in crashes.Concat(differences).Take(40))
            output.WriteLine("  " + line);
        Assert.Empty(crashes);
        Assert.Empty(differences);
        Assert.True(methods > 5000, $"only {methods} methods were read");
        Assert.True(skipLocalsInit > 100, "the round trip should cover [SkipLocalsInit] bodies");
        Assert.True(same > methods * 9 / 10, $"only {same} of {methods} methods round-trip");
    }

    // The refusal's reason without the method and offsets (so that like refusals count together).
    private static string Kind(string message)
    {
        string reason = message[(message.IndexOf(": ", StringComparison.Ordinal) + 2)..];
        reason = System.Text.RegularExpressions.Regex.Replace(reason, @"IL_[0-9A-F]{4}|0x[0-9A-F]{8}|\d+", "#");
        return reason.Length > 140 ? reason[..140] : reason;
    }

    /// <summary>What the comparison needs of a method body, copied out of its memory.</summary>
    private sealed record Body(byte[] IL, StandaloneSignatureHandle Locals, bool InitLocals, int MaxStack,
        ImmutableArray<ExceptionRegion> Regions)
    {
        public static Body Of(MethodBodyBlock b) =>
            new(b.GetILBytes()!, b.LocalSignature, b.LocalVariablesInitialized, b.MaxStack, b.ExceptionRegions);

        public static unsafe Body Of(byte[] bytes)
        {
            fixed (byte* p = bytes)
                return Of(MethodBodyBlock.Create(new BlobReader(p, bytes.Length)));
        }
    }

    /// <summary>Null when the lowered body is the original modulo short -> long branches and the
    /// encoding of local indices: same opcodes, same tokens, same operands, branches to the same
    /// instructions, same regions (by instruction), same locals signature and InitLocals.</summary>
    private static string? Compare(Body original, Body lowered)
    {
        List<Instruction> a = Decode(original.IL), b = Decode(lowered.IL);
        if (a.Count != b.Count)
            return $"{a.Count} instructions, lowered {b.Count}";
        Dictionary<int, int> indexA = Indices(a, original.IL.Length), indexB = Indices(b, lowered.IL.Length);
        for (int i = 0; i < a.Count; i++)
        {
            (string opA, long valueA) = Normal(a[i], indexA);
            (string opB, long valueB) = Normal(b[i], indexB);
            if (opA != opB || valueA != valueB || !a[i].Targets.Select(t => indexA[t]).SequenceEqual(b[i].Targets.Select(t => indexB[t])))
                return $"instruction {i}: IL_{a[i].Offset:X4} {a[i].OpCode.Name} {a[i].Value} became IL_{b[i].Offset:X4} {b[i].OpCode.Name} {b[i].Value}";
        }
        if (original.Locals != lowered.Locals)
            return $"locals signature 0x{MetadataTokens.GetToken(original.Locals):X8} became 0x{MetadataTokens.GetToken(lowered.Locals):X8}";
        if (original.InitLocals != lowered.InitLocals)
            return $"InitLocals {original.InitLocals} became {lowered.InitLocals}";
        if (lowered.MaxStack < original.MaxStack)
            return $"max stack {original.MaxStack} became {lowered.MaxStack}";
        var regionsA = original.Regions.Select(r => Region(r, indexA)).Order().ToList();
        var regionsB = lowered.Regions.Select(r => Region(r, indexB)).Order().ToList();
        return regionsA.SequenceEqual(regionsB) ? null
            : $"regions [{string.Join("; ", regionsA)}] became [{string.Join("; ", regionsB)}]";
    }

    private static string Region(ExceptionRegion r, Dictionary<int, int> index) =>
        $"{r.Kind} try {index[r.TryOffset]}-{index[r.TryOffset + r.TryLength]} handler {index[r.HandlerOffset]}-" +
        $"{index[r.HandlerOffset + r.HandlerLength]}" +
        (r.Kind == ExceptionRegionKind.Filter ? $" filter {index[r.FilterOffset]}" : "") +
        (r.Kind == ExceptionRegionKind.Catch ? $" class 0x{MetadataTokens.GetToken(r.CatchType):X8}" : "");

    private readonly record struct Instruction(int Offset, OpCode OpCode, long Value, int[] Targets);

    // Instruction offset -> index (the end of the body too).
    private static Dictionary<int, int> Indices(List<Instruction> code, int length)
    {
        var index = new Dictionary<int, int>();
        for (int i = 0; i < code.Count; i++)
            index[code[i].Offset] = i;
        index[length] = code.Count;
        return index;
    }

    private static (string OpCode, long Value) Normal(Instruction i, Dictionary<int, int> index)
    {
        string name = i.OpCode.Name!;
        if (i.OpCode.OperandType is OperandType.ShortInlineBrTarget)
            name = name[..^2];
        // ldloc.0 / ldloc.s 5 / ldloc 5: the plan writes the shortest form of a local's index.
        foreach (string family in (string[])["ldloc", "stloc", "ldloca", "ldarg", "starg", "ldarga"])
        {
            if (name == family || name == family + ".s")
                return (family, i.Value);
            if (name.Length == family.Length + 2 && name.StartsWith(family + ".", StringComparison.Ordinal) &&
                char.IsDigit(name[^1]))
                return (family, name[^1] - '0');
        }
        return i.OpCode.OperandType is OperandType.ShortInlineBrTarget or OperandType.InlineBrTarget or OperandType.InlineSwitch
            ? (name, 0)
            : (name, i.Value);
    }

    private static List<Instruction> Decode(byte[] il)
    {
        var code = new List<Instruction>();
        for (int at = 0; at < il.Length;)
        {
            int start = at;
            short value = il[at] == 0xFE ? (short)(0xFE00 | il[at + 1]) : il[at];
            OpCode op = OpCodeByValue[value];
            at += op.Size;
            long operand = 0;
            int[] targets = [];
            switch (op.OperandType)
            {
                case OperandType.InlineNone:
                    break;
                case OperandType.ShortInlineBrTarget:
                    targets = [at + 1 + (sbyte)il[at]];
                    at += 1;
                    break;
                case OperandType.ShortInlineI:
                    operand = op == OpCodes.Ldc_I4_S ? (sbyte)il[at] : il[at];
                    at += 1;
                    break;
                case OperandType.ShortInlineVar:
                    operand = il[at];
                    at += 1;
                    break;
                case OperandType.InlineVar:
                    operand = BitConverter.ToUInt16(il, at);
                    at += 2;
                    break;
                case OperandType.InlineBrTarget:
                    targets = [at + 4 + BitConverter.ToInt32(il, at)];
                    at += 4;
                    break;
                case OperandType.InlineI8 or OperandType.InlineR:
                    operand = BitConverter.ToInt64(il, at);
                    at += 8;
                    break;
                case OperandType.InlineSwitch:
                    int count = BitConverter.ToInt32(il, at);
                    int next = at + 4 + 4 * count;
                    targets = [.. Enumerable.Range(0, count).Select(k => next + BitConverter.ToInt32(il, at + 4 + 4 * k))];
                    at = next;
                    break;
                default:
                    operand = BitConverter.ToInt32(il, at);
                    at += 4;
                    break;
            }
            code.Add(new Instruction(start, op, operand, targets));
        }
        return code;
    }

    // ------------------------------------------------------------------ the edits' rules

    [Fact]
    public void AClosedGenericTargetIsReadAndCheckedAsItsDefinition()
    {
        MethodInfo closed = typeof(Holder<int>).GetMethod(nameof(Holder<int>.Show))!;
        MethodInfo definition = typeof(Holder<>).GetMethod(nameof(Holder<int>.Show))!;

        GenerationPlan plan = GenerationPlan.FromOriginal(closed);
        Assert.Equal(definition, plan.Target);
        Assert.Equal(definition, new GenerationPlan(closed).Target);
        Assert.Equal(typeof(Holder<>).GetGenericArguments()[0], plan.Locals[0].LocalType);
        plan.Lower();

        // An int stored into the T argument is right for Holder<int> only: the body replaces every
        // instantiation's, so the check (against the definition) refuses it.
        plan.InsertAtStart([new BodyInstruction(OpCodes.Ldc_I4, 5), new BodyInstruction(OpCodes.Starg, 1)]);
        Assert.Throws<StackTypeMismatchException>(() => plan.Lower());
        var built = new GenerationPlan(closed);
        built.Emit(OpCodes.Ldc_I4, 5);
        built.Emit(OpCodes.Ret);
        Assert.Throws<StackTypeMismatchException>(() => built.Lower());
    }

    [Fact]
    public void ARecursiveGenericMethodRoundTrips()
    {
        MethodInfo recurse = typeof(Targets).GetMethod(nameof(Targets.Recurse))!;
        GenerationPlan plan = GenerationPlan.FromOriginal(recurse);
        Assert.Equal(recurse, plan.Target);
        BodyInstruction call = plan.Instructions.Single(i => i.OpCode == OpCodes.Call);
        Assert.Equal(recurse, call.Operand); // M<!!0> inside M<T>: the definition
        byte[] code = Body.Of(plan.Lower().Body).IL;
        // The call keeps the original's MethodSpec token.
        int token = BitConverter.ToInt32(recurse.GetMethodBody()!.GetILAsByteArray()!,
            Offset(recurse.GetMethodBody()!.GetILAsByteArray()!, OpCodes.Call) + 1);
        Assert.Equal(0x2B, token >>> 24); // MethodSpec
        Assert.Equal(token, BitConverter.ToInt32(code, Offset(code, OpCodes.Call) + 1));
    }

    private static int Offset(byte[] il, OpCode op) =>
        Decode(il).First(i => i.OpCode == op).Offset;

    [Fact]
    public void ReplacedVolatileLoadsLoseTheirPrefixAndKeepTheirLabels()
    {
        GenerationPlan plan = GenerationPlan.FromOriginal(typeof(Targets).GetMethod(nameof(Targets.Spin))!);
        BodyInstruction prefix = plan.Instructions.Single(i => i.OpCode == OpCodes.Volatile);
        Assert.NotEmpty(prefix.Labels); // the loop's condition starts at the prefix
        List<PlanLabel> labels = [.. prefix.Labels];

        Assert.Equal(1, plan.ReplaceFieldLoads(typeof(Targets).GetField(nameof(Targets.Flag))!,
            typeof(Targets).GetMethod(nameof(Targets.ReadFlag))!));
        Assert.DoesNotContain(plan.Instructions, i => i.OpCode == OpCodes.Volatile);
        BodyInstruction call = plan.Instructions.Single(i => i.OpCode == OpCodes.Call);
        Assert.Equal(labels, call.Labels);
        plan.Lower();
    }

    [Fact]
    public void TheStackCheckRefusesAPrefixBeforeACall()
    {
        GenerationPlan plan = GenerationPlan.FromOriginal(typeof(Targets).GetMethod(nameof(Targets.Spin))!);
        int at = plan.Instructions.IndexOf(plan.Instructions.Single(i => i.OpCode == OpCodes.Volatile));
        plan.Instructions[at + 1] = new BodyInstruction(OpCodes.Call, typeof(Targets).GetMethod(nameof(Targets.ReadFlag)));
        StackTypeMismatchException e = Assert.Throws<StackTypeMismatchException>(() => plan.Lower());
        Assert.Contains("volatile. ", e.Message, StringComparison.Ordinal);
        Assert.Contains("may only precede", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ReplaceCallsChangesNothingWhenOneMatchIsRefused()
    {
        GenerationPlan plan = GenerationPlan.FromOriginal(typeof(Targets).GetMethod(nameof(Targets.Both))!);
        MethodInfo toString = typeof(object).GetMethod(nameof(ToString))!;
        string before = string.Join("\n", plan.Instructions);

        PlanException e = Assert.Throws<PlanException>(() =>
            plan.ReplaceCalls(toString, typeof(Targets).GetMethod(nameof(Targets.Describe))!));
        Assert.Contains("constrained.", e.Message, StringComparison.Ordinal);
        Assert.Equal(before, string.Join("\n", plan.Instructions));
    }

    [Fact]
    public void ReplaceChangesNothingWhenOneSequenceIsRefused()
    {
        GenerationPlan plan = GenerationPlan.FromOriginal(typeof(Targets).GetMethod(nameof(Targets.Both))!);
        string before = string.Join("\n", plan.Instructions);
        int seen = 0;
        Assert.Throws<ArgumentException>(() => plan.Replace(i => i.OpCode == OpCodes.Callvirt,
            i => ++seen == 1 ? [new BodyInstruction(OpCodes.Nop), i] : [null!]));
        Assert.Equal(2, seen);
        Assert.Equal(before, string.Join("\n", plan.Instructions));
    }

    [Fact]
    public void AFieldLoadFromAStructValueIsRefusedUpFront()
    {
        FieldInfo x = typeof(Pos).GetField(nameof(Pos.X))!;
        MethodInfo replacement = typeof(Targets).GetMethod(nameof(Targets.ReadX))!;

        GenerationPlan byValue = GenerationPlan.FromOriginal(typeof(Targets).GetMethod(nameof(Targets.FromValue))!);
        string before = string.Join("\n", byValue.Instructions);
        PlanException e = Assert.Throws<PlanException>(() => byValue.ReplaceFieldLoads(x, replacement));
        Assert.Contains("VALUE on the stack", e.Message, StringComparison.Ordinal);
        Assert.Equal(before, string.Join("\n", byValue.Instructions));

        GenerationPlan byAddress = GenerationPlan.FromOriginal(typeof(Targets).GetMethod(nameof(Targets.FromAddress))!);
        Assert.Equal(1, byAddress.ReplaceFieldLoads(x, replacement));
        byAddress.Lower();
    }

    [Fact]
    public void AnInstructionCopiedFromAnotherModulesOriginalIsNamedBySymbol()
    {
        // A call of a CoreLib method as System.Linq's original has it (a MemberRef token of System.Linq),
        // copied into a plan of this assembly's method.
        BodyInstruction call = typeof(Enumerable).GetMethods(BindingFlags.Public | BindingFlags.Static | BindingFlags.DeclaredOnly)
            .Where(m => !m.IsGenericMethodDefinition && m.GetMethodBody() is not null)
            .SelectMany(m => GenerationPlan.FromOriginal(m).Instructions)
            .First(i => i.OpCode == OpCodes.Call && i.Operand is MethodInfo { ContainsGenericParameters: false } m &&
                        m.Module == typeof(object).Module);
        GenerationPlan plan = GenerationPlan.FromOriginal(typeof(Targets).GetMethod(nameof(Targets.Spin))!);
        plan.InsertAtStart([call]);
        var lowered = plan.AllowUnverifiable().Lower(); // only the call's token matters here
        int original = (int)call.GetType().GetProperty("OriginalTokenValue", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(call)!;
        byte[] code = Body.Of(lowered.Body).IL;
        int token = BitConverter.ToInt32(code, 1);
        // Either a relocation at the operand, or a token of THIS module that names the same method.
        bool relocated = lowered.Relocations.Any(r => r.ILOffset == 1);
        Assert.True(relocated || Resolves(token, (MethodInfo)call.Operand!),
            $"the copied call was written with token 0x{token:X8} (System.Linq's was 0x{original:X8})");
    }

    private static bool Resolves(int token, MethodInfo method)
    {
        try
        {
            return typeof(Targets).Module.ResolveMethod(token) == method;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }

    [Fact]
    public void TheOriginalsInitLocalsFlagIsKept()
    {
        foreach ((string name, bool init) in (ValueTuple<string, bool>[])[(nameof(Targets.Skipping), false), (nameof(Targets.Zeroing), true)])
        {
            MethodInfo method = typeof(Targets).GetMethod(name)!;
            Assert.Equal(init, method.GetMethodBody()!.InitLocals);
            Assert.Equal(init, Body.Of(GenerationPlan.FromOriginal(method).Lower().Body).InitLocals);
        }
        // A local the plan declares is zero-initialized: the flag is set then.
        GenerationPlan plan = GenerationPlan.FromOriginal(typeof(Targets).GetMethod(nameof(Targets.Skipping))!);
        plan.DeclareLocal(typeof(int));
        Assert.True(Body.Of(plan.Lower().Body).InitLocals);
    }

    [Fact]
    public void ILOffsetHasNoMeaningAndRelocationCountFollowsTheEdits()
    {
        GenerationPlan plan = GenerationPlan.FromOriginal(typeof(Targets).GetMethod(nameof(Targets.Spin))!);
        Assert.Throws<InvalidOperationException>(() => plan.ILOffset);
        Assert.Equal(0, plan.RelocationCount);
        // A literal no module has (not even this one: it is made at run time).
        plan.InsertAtStart([new BodyInstruction(OpCodes.Ldstr, "literal " + Guid.NewGuid()), new BodyInstruction(OpCodes.Pop)]);
        Assert.Equal(1, plan.RelocationCount);
        Assert.Single(plan.Lower().Relocations);
    }

    [Fact]
    public void MetadataThatCannotBeReadIsAPlanException()
    {
        // calli whose operand is a MethodDef token, not a StandAloneSig.
        MethodInfo calli = BadAssembly.Method("BadCalli");
        PlanException e = Assert.Throws<PlanException>(() => GenerationPlan.FromOriginal(calli));
        Assert.Contains("calli signature 0x06000001 cannot be read", e.Message, StringComparison.Ordinal);

        // A local whose type lives in an assembly the target's load context cannot find.
        MethodInfo local = BadAssembly.Method("UnresolvableLocal");
        e = Assert.Throws<PlanException>(() => GenerationPlan.FromOriginal(local));
        Assert.Contains("its body or its locals cannot be resolved", e.Message, StringComparison.Ordinal);
    }

    /// <summary>Methods C# cannot write, in assemblies emitted with PersistedAssemblyBuilder and
    /// loaded from their bytes.</summary>
    private static class BadAssembly
    {
        private static readonly Lazy<Type> Loaded = new(Build);

        public static MethodInfo Method(string name) => Loaded.Value.GetMethod(name)!;

        private static Type Build()
        {
            // A type of an assembly loaded only in a context of its own (no file, not in the default context).
            var hidden = new PersistedAssemblyBuilder(new AssemblyName("AlvorKit.Hooks.Tests.Hidden"), typeof(object).Assembly);
            hidden.DefineDynamicModule("AlvorKit.Hooks.Tests.Hidden").DefineType("Hidden", TypeAttributes.Public).CreateType();
            using var hiddenBytes = new MemoryStream();
            hidden.Save(hiddenBytes);
            hiddenBytes.Position = 0;
            Type hiddenType = new System.Runtime.Loader.AssemblyLoadContext("hidden").LoadFromStream(hiddenBytes).GetType("Hidden")!;

            var builder = new PersistedAssemblyBuilder(new AssemblyName("AlvorKit.Hooks.Tests.Bad"), typeof(object).Assembly);
            TypeBuilder type = builder.DefineDynamicModule("AlvorKit.Hooks.Tests.Bad").DefineType("Bad",
                TypeAttributes.Public | TypeAttributes.Class | TypeAttributes.Abstract | TypeAttributes.Sealed);
            MethodBuilder badCalli = type.DefineMethod("BadCalli", MethodAttributes.Public | MethodAttributes.Static);
            ILGenerator il = badCalli.GetILGenerator();
            il.Emit(OpCodes.Ldc_I4_0);
            il.Emit(OpCodes.Conv_I);
            il.Emit(OpCodes.Calli, 0x06000001); // the operand of calli must be a StandAloneSig
            il.Emit(OpCodes.Ret);
            MethodBuilder unresolvable = type.DefineMethod("UnresolvableLocal", MethodAttributes.Public | MethodAttributes.Static);
            il = unresolvable.GetILGenerator();
            il.DeclareLocal(hiddenType);
            il.Emit(OpCodes.Ret);
            type.CreateType();
            using var stream = new MemoryStream();
            builder.Save(stream);
            return Assembly.Load(stream.ToArray()).GetType("Bad")!;
        }
    }

#pragma warning disable CA1051, CA2211 // shapes of game code: fields read and written by the targets
    public sealed class Holder<T>
    {
        public T? Value;

        public T? Show(T value)
        {
            T? old = Value;
            Value = value;
            return old;
        }
    }

    public struct Pos
    {
        public int X;
    }

    public static class Targets
    {
        public static volatile bool Flag;
        public static int Spins;

        public static T Recurse<T>(T value, int depth) => depth == 0 ? value : Recurse(value, depth - 1);

        public static void Spin()
        {
            while (!Flag)
                Spins++;
        }

        public static bool ReadFlag() => true;

        public static string Both<T>(object o, T t) => o.ToString() + t!.ToString();

        public static string Describe(object o) => o.GetType().Name;

        public static Pos Make() => new() { X = 3 };

        public static int FromValue() => Make().X;

        public static int FromAddress(ref Pos p) => p.X;

        public static int ReadX(ref Pos p) => p.X + 1;

        [SkipLocalsInit]
        public static int Skipping(int n)
        {
            Span<int> values = stackalloc int[4];
            values[0] = n;
            return values[0];
        }

        public static int Zeroing(int n)
        {
            Span<int> values = stackalloc int[4];
            values[0] = n;
            return values[0];
        }
    }
#pragma warning restore CA1051, CA2211
}
