using System.Buffers.Binary;
using System.Diagnostics;
using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using AlvorKit.Interception.Plans;
using Xunit;
using Xunit.Abstractions;

namespace AlvorKit.Hooks.Tests;

/// <summary>Targets of the hand-written bodies below (their module's metadata is the native side's).</summary>
public static class AgreementTargets
{
    public static readonly string Label = "label";

    public static string Name(int x) => x.ToString(System.Globalization.CultureInfo.InvariantCulture);

    public static double Ratio(int x) => x / 2.0;

    public static int Abs(int x) => Math.Abs(x);

    public static long Widen(long x) => x;

    public static int Pick(int x) => x > 0 ? 1 : 2;

    public static void Act(int x) => _ = Name(x);
}

/// <summary>
/// The managed stack-type check (Plans/StackTypeChecker.cs, on the plan's symbols) and the native
/// one (the worker's, catalog/stack_type_oracle.c over il/il_stack_types.c, on the lowered bytes)
/// decide the same question: both are given the same bodies, and their verdicts must agree (refused
/// or not, and where). The bodies: every method of a few real assemblies as FromOriginal lowers it,
/// woven hook bodies, hand-written bodies, and mutations of the real ones (an underflow, a wrong
/// return type, two paths meeting with different depths). Each body is lowered twice: with the
/// plan's check (the managed verdict) and without it (the bytes the native side gets). The native
/// side is tests/native/stack_check_replay (built by ./build.sh build_native), given the
/// generations and the metadata rows of their module, which it serves through the metadata
/// import the worker's module oracle reads.
/// </summary>
public sealed class StackTypeAgreementTests(ITestOutputHelper output)
{
    private const int StackTypeMismatch = (int)InterceptionStatus.StackTypeMismatch;

    /// <summary>One body: its name, the plan's verdict (null: accepted) and what the native side gets.
    /// ReturnsUnclassified: the body returns a value where its target returns a generic parameter of its
    /// own or a value type other than a primitive or an enum (see <see cref="NativeCannotTell"/>).</summary>
    private sealed record Case(string Name, MethodBase Target, int? ManagedOffset, byte[] Body, byte[] Pool,
        IReadOnlyList<uint[]> Relocations, bool ReturnsUnclassified = false);

    /// <summary>
    /// Where the two checks are known to differ, by design: the native check types a location of the
    /// target's own generic parameter as unknown (the body serves every instantiation) and a value type
    /// it cannot classify (a TypeRef to a struct of another module: a struct, an enum, or a primitive
    /// written as a TypeRef) as "anything but an object reference", so a float returned there passes
    /// natively while the plan's check, with reflection's exact types, refuses it. Only the mutation that
    /// returns a float meets this; such a disagreement must go that way (managed refuses, native
    /// accepts), and is counted apart. Any other disagreement fails the test.
    /// </summary>
    private static bool NativeCannotTell(MethodBase target) =>
        target is MethodInfo m && (m.ReturnType.IsGenericParameter ||
                                   (m.ReturnType.IsValueType && !m.ReturnType.IsPrimitive && !m.ReturnType.IsEnum));

    [Fact]
    public void BothChecksGiveTheSameVerdictOnTheSameBodies()
    {
        var watch = Stopwatch.StartNew();
        var disagreements = new List<string>();
        int bodies = 0, refusedByBoth = 0, acceptedByBoth = 0, mutated = 0, knownDifferences = 0;

        // Real methods (and their mutations) of System.Linq; this module: woven and hand-written bodies.
        var linq = new List<Case>();
        foreach (MethodBase method in DeclaredMethods.Of(typeof(Enumerable).Assembly).Where(m => m.GetMethodBody() is not null))
        {
            if (Lowered(method.ToString()!, () => GenerationPlan.FromOriginal(method)) is { } real)
                linq.Add(real);
            if (bodies++ % 4 == 0)
                foreach ((bool returnsFloat, Func<GenerationPlan> mutation) in Mutations(method))
                    if (Lowered($"{method} (mutated)", mutation, returnsFloat) is { } m)
                    {
                        linq.Add(m);
                        mutated++;
                    }
        }
        var own = new List<Case>();
        foreach ((string name, Func<GenerationPlan> make) in Woven().Concat(HandWritten()))
            if (Lowered(name, make) is { } c)
                own.Add(c);
        foreach (MethodBase method in DeclaredMethods.Of(typeof(Enemy).Assembly).Where(m =>
                     m.GetMethodBody() is not null && (m.DeclaringType == typeof(Enemy) || m.DeclaringType == typeof(AgreementTargets))))
        {
            if (Lowered(method.ToString()!, () => GenerationPlan.FromOriginal(method)) is { } real)
                own.Add(real);
            foreach ((bool returnsFloat, Func<GenerationPlan> mutation) in Mutations(method))
                if (Lowered($"{method} (mutated)", mutation, returnsFloat) is { } m)
                {
                    own.Add(m);
                    mutated++;
                }
        }

        foreach ((Assembly assembly, List<Case> cases) in new[] { (typeof(Enumerable).Assembly, linq), (typeof(Enemy).Assembly, own) })
        {
            Dictionary<int, (int Status, int Offset)> native = RunNative(assembly, cases);
            for (int i = 0; i < cases.Count; i++)
            {
                Case c = cases[i];
                if (!native.TryGetValue(i, out (int Status, int Offset) n))
                {
                    disagreements.Add($"{c.Name}: the native side gave no verdict");
                    continue;
                }
                bool nativeRefused = n.Status == StackTypeMismatch;
                if (n.Status is not (0 or StackTypeMismatch))
                    disagreements.Add($"{c.Name}: the native check returned status {n.Status}");
                else if (c.ReturnsUnclassified && c.ManagedOffset.HasValue && !nativeRefused)
                    knownDifferences++;
                else if (nativeRefused != c.ManagedOffset.HasValue)
                    disagreements.Add($"{c.Name}: managed {Verdict(c.ManagedOffset)}, native {Verdict(nativeRefused ? n.Offset : null)}");
                else if (nativeRefused && n.Offset != c.ManagedOffset)
                    disagreements.Add($"{c.Name}: both refuse, managed at IL_{c.ManagedOffset:X4}, native at IL_{n.Offset:X4}");
                else if (nativeRefused)
                    refusedByBoth++;
                else
                    acceptedByBoth++;
            }
        }

        output.WriteLine($"{linq.Count + own.Count} bodies ({mutated} mutated): {acceptedByBoth} accepted and " +
                         $"{refusedByBoth} refused by both, {knownDifferences} refused by the plan only where the native check " +
                         $"cannot tell (a float returned for a generic parameter or an unclassified value type), " +
                         $"{disagreements.Count} disagreements, in {watch.Elapsed.TotalSeconds:F1} s");
        foreach (string line in disagreements.Take(60))
            output.WriteLine("  " + line);
        Assert.Empty(disagreements);
        Assert.True(acceptedByBoth > 1000, $"only {acceptedByBoth} bodies accepted by both");
        Assert.True(refusedByBoth > 500, $"only {refusedByBoth} bodies refused by both");
    }

    private static string Verdict(int? offset) => offset is { } o ? $"refuses at IL_{o:X4}" : "accepts";

    /// <summary>The plan `make` builds, lowered with the plan's check and without it; null when it cannot
    /// be lowered for another reason than its stack types (a limit, an unsupported body).</summary>
    private static Case? Lowered(string name, Func<GenerationPlan> make, bool returnsFloat = false)
    {
        int? managed = null;
        GenerationPlan plan;
        try
        {
            plan = make();
            plan.Lower();
        }
        catch (StackTypeMismatchException e)
        {
            managed = e.ILOffset;
        }
#pragma warning disable CA1031 // bodies the plan cannot take at all are not this test's
        catch (Exception)
#pragma warning restore CA1031
        {
            return null;
        }
        try
        {
            plan = make();
            plan.SkipPlanStackCheck = true;
            LoweredGeneration lowered = plan.Lower();
            if (lowered.Unverifiable)
                return null;
            List<uint[]> relocations = [.. lowered.Relocations.Select(r => new[]
            {
                44u, (uint)r.Kind, r.ILOffset, r.ParentToken, r.ParentRelocation, r.NameOffset, r.NameLength,
                r.BlobOffset, r.BlobLength, r.SitesOffset, r.SiteCount,
            })];
            return new Case(name, plan.Target, managed, lowered.Body, lowered.Pool, relocations,
                returnsFloat && NativeCannotTell(plan.Target));
        }
#pragma warning disable CA1031
        catch (Exception)
#pragma warning restore CA1031
        {
            return null;
        }
    }

    // ------------------------------------------------------------------ the bodies

    /// <summary>Edits of a real body that break it: a pop on the empty stack at the start, another type
    /// returned, two paths meeting with different depths.</summary>
    private static IEnumerable<(bool ReturnsFloat, Func<GenerationPlan> Make)> Mutations(MethodBase method)
    {
        if (method.GetMethodBody() is null)
            yield break;
        bool isVoid = method is ConstructorInfo || ((MethodInfo)method).ReturnType == typeof(void);
        yield return (false, () => PopFirst(method));
        yield return (!isVoid, () => ReturnOther(method, isVoid));
        yield return (false, () => MeetUneven(method));
    }

    private static GenerationPlan PopFirst(MethodBase method)
    {
        GenerationPlan p = GenerationPlan.FromOriginal(method);
        p.Instructions.Insert(0, new BodyInstruction(OpCodes.Pop));
        return p;
    }

    private static GenerationPlan ReturnOther(MethodBase method, bool isVoid)
    {
        GenerationPlan p = GenerationPlan.FromOriginal(method);
        int ret = IndexOf(p, OpCodes.Ret);
        if (isVoid)
            p.Instructions.Insert(ret, new BodyInstruction(OpCodes.Ldc_I4_0));
        else
        {
            p.Instructions.Insert(ret, new BodyInstruction(OpCodes.Pop));
            p.Instructions.Insert(ret + 1, new BodyInstruction(OpCodes.Ldc_R8, 0.0));
        }
        return p;
    }

    private static GenerationPlan MeetUneven(MethodBase method)
    {
        GenerationPlan p = GenerationPlan.FromOriginal(method);
        PlanLabel join = p.DefineLabel();
        var nop = new BodyInstruction(OpCodes.Nop);
        nop.Labels.Add(join);
        p.Instructions.Insert(0, new BodyInstruction(OpCodes.Ldc_I4_0));
        p.Instructions.Insert(1, new BodyInstruction(OpCodes.Brtrue, join));
        p.Instructions.Insert(2, new BodyInstruction(OpCodes.Ldc_I4_1));
        p.Instructions.Insert(3, nop);
        return p;
    }

    private static int IndexOf(GenerationPlan p, OpCode opcode)
    {
        for (int i = 0; i < p.Instructions.Count; i++)
            if (p.Instructions[i].OpCode == opcode && p.Instructions[i].Labels.Count == 0)
                return i;
        throw new InvalidOperationException("no such instruction");
    }

    private static IEnumerable<(string, Func<GenerationPlan>)> Woven()
    {
        static MethodInfo Hook(string name) => typeof(Hooks).GetMethod(name)!;
        static Func<GenerationPlan> Weave(MethodBase target, MethodInfo[] prefixes, MethodInfo[] postfixes, bool calli) =>
            () => HookWeaver.Weave(HookComposition.Compose(target,
                [new HookSetInfo(HookBinder.BindSet(target, prefixes.Select(m => (HookMethod)m), postfixes.Select(m => (HookMethod)m), []),
                    "mod", 0, "Hook call", calli)]));
        MethodInfo damage = typeof(Enemy).GetMethod(nameof(Enemy.Damage))!;
        foreach (bool calli in new[] { false, true })
        {
            yield return ($"woven Damage prefix (calli {calli})", Weave(damage, [Hook(nameof(Hooks.Prefix))], [], calli));
            yield return ($"woven Damage postfix (calli {calli})", Weave(damage, [], [Hook(nameof(Hooks.PassThrough))], calli));
            yield return ($"woven Point.Sum (calli {calli})", Weave(typeof(Point).GetMethod(nameof(Point.Sum))!,
                [Hook(nameof(Hooks.PointSum)), Hook(nameof(Hooks.PointCopy))], [], calli));
            yield return ($"woven Box.Get (calli {calli})", Weave(typeof(Box<>).GetMethod("Get")!, [], [Hook(nameof(Hooks.BoxGet))], calli));
            yield return ($"woven Spawner (calli {calli})", Weave(typeof(Spawner).GetConstructors()[0],
                [Hook(nameof(Hooks.SpawnerPrefix))], [], calli));
            yield return ($"woven Damage original (calli {calli})", Weave(damage, [Hook(nameof(Hooks.WithOriginal))], [], calli));
            yield return ($"woven Tick (calli {calli})", Weave(typeof(Enemy).GetMethod(nameof(Enemy.Tick))!, [],
                [Hook(nameof(Hooks.Nothing))], calli));
        }
    }

    private static IEnumerable<(string, Func<GenerationPlan>)> HandWritten()
    {
        static Func<GenerationPlan> Plan(string target, Action<GenerationPlan> body) => () =>
        {
            var p = new GenerationPlan(typeof(AgreementTargets).GetMethod(target)!);
            body(p);
            return p;
        };
        MethodInfo abs = typeof(Math).GetMethod(nameof(Math.Abs), [typeof(int)])!;
        yield return ("int32 returned for a string", Plan(nameof(AgreementTargets.Name), p =>
        {
            p.Emit(OpCodes.Ldarg_0);
            p.Emit(OpCodes.Ret);
        }));
        yield return ("a string returned for a double", Plan(nameof(AgreementTargets.Ratio), p =>
        {
            p.Emit(OpCodes.Ldsfld, typeof(AgreementTargets).GetField(nameof(AgreementTargets.Label))!);
            p.Emit(OpCodes.Ret);
        }));
        yield return ("null passed for an int32", Plan(nameof(AgreementTargets.Abs), p =>
        {
            p.Emit(OpCodes.Ldnull);
            p.Emit(OpCodes.Call, abs);
            p.Emit(OpCodes.Ret);
        }));
        yield return ("int64 passed for an int32", Plan(nameof(AgreementTargets.Abs), p =>
        {
            p.Emit(OpCodes.Ldc_I8, 5L);
            p.Emit(OpCodes.Call, abs);
            p.Emit(OpCodes.Ret);
        }));
        yield return ("int32 returned for an int64", Plan(nameof(AgreementTargets.Widen), p =>
        {
            p.Emit(OpCodes.Ldc_I4_1);
            p.Emit(OpCodes.Ret);
        }));
        yield return ("an int32 and a double added", Plan(nameof(AgreementTargets.Ratio), p =>
        {
            p.Emit(OpCodes.Ldarg_0);
            p.Emit(OpCodes.Ldc_R8, 2.0);
            p.Emit(OpCodes.Add);
            p.Emit(OpCodes.Ret);
        }));
        yield return ("two paths meet with different depths", Plan(nameof(AgreementTargets.Pick), p =>
        {
            PlanLabel join = p.DefineLabel();
            p.Emit(OpCodes.Ldarg_0);
            p.Emit(OpCodes.Brtrue, join);
            p.Emit(OpCodes.Ldc_I4_1);
            p.MarkLabel(join);
            p.Emit(OpCodes.Ldc_I4_2);
            p.Emit(OpCodes.Ret);
        }));
        yield return ("two paths meet with an int32 and a double", Plan(nameof(AgreementTargets.Pick), p =>
        {
            PlanLabel other = p.DefineLabel(), join = p.DefineLabel();
            p.Emit(OpCodes.Ldarg_0);
            p.Emit(OpCodes.Brtrue, other);
            p.Emit(OpCodes.Ldc_I4_1);
            p.Emit(OpCodes.Br, join);
            p.MarkLabel(other);
            p.Emit(OpCodes.Ldc_R8, 1.0);
            p.MarkLabel(join);
            p.Emit(OpCodes.Pop);
            p.Emit(OpCodes.Ldc_I4_0);
            p.Emit(OpCodes.Ret);
        }));
        yield return ("a value left behind by a void method", Plan(nameof(AgreementTargets.Act), p =>
        {
            p.Emit(OpCodes.Ldarg_0);
            p.Emit(OpCodes.Ret);
        }));
        yield return ("nothing to return", Plan(nameof(AgreementTargets.Pick), p => p.Emit(OpCodes.Ret)));
        yield return ("a correct body", Plan(nameof(AgreementTargets.Abs), p =>
        {
            p.Emit(OpCodes.Ldarg_0);
            p.Emit(OpCodes.Call, abs);
            p.Emit(OpCodes.Ret);
        }));
        yield return ("a correct merge", Plan(nameof(AgreementTargets.Pick), p =>
        {
            PlanLabel other = p.DefineLabel(), join = p.DefineLabel();
            p.Emit(OpCodes.Ldarg_0);
            p.Emit(OpCodes.Brtrue, other);
            p.Emit(OpCodes.Ldc_I4_1);
            p.Emit(OpCodes.Br, join);
            p.MarkLabel(other);
            p.Emit(OpCodes.Ldc_I4_2);
            p.MarkLabel(join);
            p.Emit(OpCodes.Ret);
        }));
    }

    // ------------------------------------------------------------------ the native side

    /// <summary>Writes the corpus (stack_check_replay.c describes it), runs the native side, reads its verdicts.</summary>
    private Dictionary<int, (int Status, int Offset)> RunNative(Assembly assembly, List<Case> cases)
    {
        string corpus = Path.Combine(Path.GetTempPath(), $"alvk-stack-agreement-{Environment.ProcessId}-{assembly.GetName().Name}.bin");
        using (var pe = new PEReader(File.OpenRead(assembly.Location)))
        {
            MetadataReader reader = pe.GetMetadataReader();
            using var w = new BinaryWriter(File.Create(corpus));
            WriteRows(w, reader);
            w.Write(cases.Count);
            for (int i = 0; i < cases.Count; i++)
            {
                Case c = cases[i];
                MethodDefinition definition = reader.GetMethodDefinition(
                    (MethodDefinitionHandle)MetadataTokens.EntityHandle(c.Target.MetadataToken));
                bool valueTypeReceiver = !c.Target.IsStatic && c.Target.DeclaringType!.IsValueType;
                w.Write(i);
                w.Write(valueTypeReceiver ? 0x8 : 0); // ALVK_METHOD_VALUE_TYPE_RECEIVER
                w.Write(0);
                Bytes(w, reader.GetBlobBytes(definition.Signature));
                Bytes(w, c.Body);
                Bytes(w, c.Pool);
                w.Write(c.Relocations.Count);
                foreach (uint[] r in c.Relocations)
                    foreach (uint field in r)
                        w.Write(field);
            }
        }
        string tool = ReplayTool();
        var start = new ProcessStartInfo(tool, [corpus]) { RedirectStandardOutput = true, RedirectStandardError = true };
        start.Environment["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=1";
        using Process process = Process.Start(start)!;
        Task<string> error = process.StandardError.ReadToEndAsync();
        var verdicts = new Dictionary<int, (int, int)>();
        while (process.StandardOutput.ReadLine() is { } line)
        {
            string[] f = line.Split(' ');
            verdicts[int.Parse(f[0], System.Globalization.CultureInfo.InvariantCulture)] = f[1] == "invalid"
                ? (-int.Parse(f[2], System.Globalization.CultureInfo.InvariantCulture), 0)
                : (int.Parse(f[1], System.Globalization.CultureInfo.InvariantCulture),
                    int.Parse(f[2], System.Globalization.CultureInfo.InvariantCulture));
        }
        process.WaitForExit();
        output.WriteLine($"{tool}: {cases.Count} generations of {assembly.GetName().Name}, exit {process.ExitCode} {error.Result}");
        Assert.True(process.ExitCode == 0, $"{tool} failed ({process.ExitCode}): {error.Result}");
        File.Delete(corpus);
        return verdicts;
    }

    private static string ReplayTool()
    {
        string? path = Environment.GetEnvironmentVariable("ALVK_STACK_CHECK_REPLAY");
        if (!string.IsNullOrEmpty(path))
            return path;
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "build.sh")))
            {
                string tool = Path.Combine(dir.FullName, "build", "native-asan", "tests", "native", "stack_check_replay");
                Assert.True(File.Exists(tool), $"{tool} is missing: ./build.sh step build_native builds it (or set ALVK_STACK_CHECK_REPLAY)");
                return tool;
            }
        }
        throw new DirectoryNotFoundException($"no checkout above {AppContext.BaseDirectory}");
    }

    private static void Bytes(BinaryWriter w, byte[] bytes)
    {
        w.Write(bytes.Length);
        w.Write(bytes);
    }

    private static void Row(BinaryWriter w, EntityHandle handle, int a, int b, string name, byte[] blob, int[] list)
    {
        w.Write(MetadataTokens.GetToken(handle));
        w.Write(a);
        w.Write(b);
        w.Write(name.Length);
        foreach (char c in name)
            w.Write((ushort)c);
        Bytes(w, blob);
        w.Write(list.Length);
        foreach (int x in list)
            w.Write(x);
    }

    private static int Token(EntityHandle h) => h.IsNil ? 0 : MetadataTokens.GetToken(h);

    /// <summary>The module's rows the worker's oracle reads, in token order.</summary>
    private static void WriteRows(BinaryWriter w, MetadataReader r)
    {
        string Name(StringHandle ns, StringHandle name) =>
            ns.IsNil || r.GetString(ns).Length == 0 ? r.GetString(name) : $"{r.GetString(ns)}.{r.GetString(name)}";
        var rows = new List<Action>();
        foreach (TypeReferenceHandle h in r.TypeReferences)
        {
            TypeReference t = r.GetTypeReference(h);
            rows.Add(() => Row(w, h, Token(t.ResolutionScope), 0, Name(t.Namespace, t.Name), [], []));
        }
        foreach (TypeDefinitionHandle h in r.TypeDefinitions)
        {
            TypeDefinition t = r.GetTypeDefinition(h);
            rows.Add(() => Row(w, h, (int)t.Attributes, Token(t.BaseType), Name(t.Namespace, t.Name), [],
                [.. t.GetFields().Select(f => MetadataTokens.GetToken(f))]));
        }
        foreach (FieldDefinitionHandle h in Enumerable.Range(1, r.GetTableRowCount(TableIndex.Field)).Select(MetadataTokens.FieldDefinitionHandle))
        {
            FieldDefinition f = r.GetFieldDefinition(h);
            rows.Add(() => Row(w, h, MetadataTokens.GetToken(f.GetDeclaringType()), (int)f.Attributes, "", r.GetBlobBytes(f.Signature), []));
        }
        foreach (MethodDefinitionHandle h in r.MethodDefinitions)
        {
            MethodDefinition m = r.GetMethodDefinition(h);
            rows.Add(() => Row(w, h, MetadataTokens.GetToken(m.GetDeclaringType()), (int)m.Attributes, "", r.GetBlobBytes(m.Signature), []));
        }
        foreach (MemberReferenceHandle h in r.MemberReferences)
        {
            MemberReference m = r.GetMemberReference(h);
            rows.Add(() => Row(w, h, Token(m.Parent), 0, "", r.GetBlobBytes(m.Signature), []));
        }
        foreach (StandaloneSignatureHandle h in Enumerable.Range(1, r.GetTableRowCount(TableIndex.StandAloneSig)).Select(MetadataTokens.StandaloneSignatureHandle))
            rows.Add(() => Row(w, h, 0, 0, "", r.GetBlobBytes(r.GetStandaloneSignature(h).Signature), []));
        foreach (TypeSpecificationHandle h in Enumerable.Range(1, r.GetTableRowCount(TableIndex.TypeSpec)).Select(MetadataTokens.TypeSpecificationHandle))
            rows.Add(() => Row(w, h, 0, 0, "", r.GetBlobBytes(r.GetTypeSpecification(h).Signature), []));
        foreach (MethodSpecificationHandle h in Enumerable.Range(1, r.GetTableRowCount(TableIndex.MethodSpec)).Select(MetadataTokens.MethodSpecificationHandle))
        {
            MethodSpecification m = r.GetMethodSpecification(h);
            rows.Add(() => Row(w, h, Token(m.Method), 0, "", r.GetBlobBytes(m.Signature), []));
        }
        w.Write(rows.Count);
        foreach (Action row in rows)
            row();
    }
}
