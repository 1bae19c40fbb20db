using System.Buffers.Binary;
using System.Reflection.Metadata;
using System.Text;
using AlvorKit.Interception;
using AlvorKit.Interception.HotReload;
using AlvorKit.Interception.Plans;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>
/// Changed bodies translated into the loaded module's token space: existing rows are used as
/// they are (no relocation), what is new becomes a relocation, and every translated body is the
/// rebuilt body with its tokens mapped and passes the native validator. The assertions marked
/// ABI 3.3 (user strings, class references in signature blobs, catch types) need the native
/// library of ABI 3.3; an ABI 3.2 library refuses those kinds (ALVK_E_RELOCATION_MALFORMED,
/// ALVK_E_SIGNATURE_MALFORMED).
/// </summary>
public sealed class TranslationTests
{
    private static string World(string members) => $$"""
        using System;
        using System.Collections.Generic;
        namespace Game;
        public class World
        {
            private int _ticks;
            public static string Greeting() => "hello";
            public static int Clamp(int x) => Math.Max(x, 0);
            public static int Empty() => Array.Empty<int>().Length;
            public static bool Guard(Action a)
            {
                try { a(); return true; }
                catch (InvalidOperationException) { return false; }
            }
            public int Tick() => ++_ticks;
            public static int Len(string s) => s.Length;
        {{members}}
        }
        """;

    private static TranslatedBody Changed(string before, string after, string member, out string loaded, out string rebuilt)
    {
        (ReloadTranslation translation, loaded, rebuilt) = Translated.Of(World(before), World(after));
        TranslatedBody body = Translated.Single(translation, member);
        Translated.AssertMapped(loaded, rebuilt, body);
        return body;
    }

    [Fact]
    public void AChangedConstantNeedsNoRelocation()
    {
        TranslatedBody body = Changed("public static int Speed(int x) => x * 2;",
                                      "public static int Speed(int x) => x * 3;", "Game.World.Speed(int)", out _, out _);

        Assert.Empty(body.Lowered.Relocations);
        Assert.Equal(0x19, body.Lowered.Body[2]); // ldc.i4.3, after the tiny header and ldarg.0
        Translated.AssertValid(body.Lowered);
    }

    [Fact]
    public void ExistingMembersFieldsAndStringsNeedNoRelocation()
    {
        TranslatedBody body = Changed(
            "public int Update(int x) => x;",
            "public int Update(int x) { _ticks += Clamp(x) + Math.Max(x, 3) + Len(\"hello\") + Greeting().Length; return Tick() + Empty(); }",
            "Game.World.Update(int)", out _, out _);

        Assert.Empty(body.Lowered.Relocations);
        Translated.AssertValid(body.Lowered);
    }

    [Fact]
    public void ANewFrameworkCallIsAMemberRefOnANewTypeRef()
    {
        TranslatedBody body = Changed(
            "public static long Now() => 0;",
            "public static long Now() => System.Diagnostics.Stopwatch.GetTimestamp() + Math.Min(1, 2);",
            "Game.World.Now()", out _, out _);

        RelocationSpec typeRef = Assert.Single(Translated.OfKind(body, RelocationKind.TypeRef));
        Assert.Equal("System.Diagnostics.Stopwatch", Translated.Name(body, typeRef));
        Assert.Equal(0x2300_0000u, typeRef.ParentToken & 0xFF00_0000u); // an AssemblyRef of the loaded module
        Assert.Equal(RelocationTable.NoOperand, typeRef.ILOffset);
        RelocationSpec[] members = Translated.OfKind(body, RelocationKind.MemberRef);
        Assert.Equal(2, members.Length);
        RelocationSpec timestamp = Assert.Single(members, m => Translated.Name(body, m) == "GetTimestamp");
        Assert.Equal(1u, timestamp.ParentRelocation); // the TypeRef above, handed on
        RelocationSpec min = Assert.Single(members, m => Translated.Name(body, m) == "Min");
        Assert.Equal(0x0100_0000u, min.ParentToken & 0xFF00_0000u); // System.Math: the loaded module's TypeRef
        Assert.Equal(0u, min.ParentRelocation);
        Translated.AssertValid(body.Lowered);
    }

    [Fact]
    public void ANewStringIsAUserStringRelocationOfItsUtf16CodeUnits()
    {
        TranslatedBody body = Changed("public static string Title() => \"hello\";",
                                      "public static string Title() => \"héllo wörld\";", "Game.World.Title()",
                                      out _, out _);

        RelocationSpec relocation = Assert.Single(body.Lowered.Relocations);
        Assert.Equal(TokenTranslator.UserStringKind, relocation.Kind);
        Assert.Equal(1u, relocation.ILOffset); // ldstr's operand
        Assert.Equal(Encoding.Unicode.GetBytes("héllo wörld"), Translated.Blob(body, relocation));
        Assert.Equal(0x7000_0000, BinaryPrimitives.ReadInt32LittleEndian(body.Lowered.Body.AsSpan(2)));
        Translated.AssertValid(body.Lowered); // ABI 3.3
    }

    [Fact]
    public void ANewInstantiationOverANewTypeNamesItsTypeRefWithTag3()
    {
        TranslatedBody body = Changed(
            "public static int Count() => 0;",
            "public static int Count() => Array.Empty<System.Text.StringBuilder>().Length + new List<System.Text.StringBuilder>().Count;",
            "Game.World.Count()", out _, out _);

        RelocationSpec[] all = [.. body.Lowered.Relocations];
        bool IsStringBuilder(RelocationSpec r) =>
            r.Kind == RelocationKind.TypeRef && Translated.Name(body, r) == "System.Text.StringBuilder";
        int typeRef = Array.FindIndex(all, IsStringBuilder);
        Assert.True(typeRef >= 0, "no TypeRef relocation for StringBuilder");
        Assert.Single(all, IsStringBuilder); // one TypeRef, named by every blob that needs it
        // The class inside the blobs: CLASS (0x12) then (row << 2) | 3, row 1-based.
        byte[] tag3 = [0x12, (byte)(((typeRef + 1) << 2) | 3)];
        RelocationSpec methodSpec = Assert.Single(Translated.OfKind(body, RelocationKind.MethodSpec));
        Assert.Equal([0x0A, 0x01, .. tag3], Translated.Blob(body, methodSpec));
        Assert.True(methodSpec.ParentToken != 0, "Array.Empty<T> is a MemberRef the loaded module has");
        Assert.Contains(Translated.OfKind(body, RelocationKind.TypeSpec),
                        s => Translated.Blob(body, s).AsSpan().IndexOf(tag3) >= 0);
        Translated.AssertValid(body.Lowered); // ABI 3.3
    }

    [Fact]
    public void ANewCatchTypeIsACatchTypeRelocation()
    {
        TranslatedBody body = Changed(
            "public static bool Safe(Action a) { try { a(); return true; } catch (InvalidOperationException) { return false; } }",
            "public static bool Safe(Action a) { try { a(); return true; } catch (TimeoutException) { return false; } }",
            "Game.World.Safe(System.Action)", out _, out _);

        RelocationSpec relocation = Assert.Single(body.Lowered.Relocations);
        Assert.Equal(RelocationKind.TypeRef, relocation.Kind);
        Assert.Equal("System.TimeoutException", Translated.Name(body, relocation));
        Assert.Equal(0xFFFF_0000u, relocation.ILOffset); // ALVK_RELOCATION_CATCH_TYPE(0)
        Translated.AssertValid(body.Lowered); // ABI 3.3
    }

    [Fact]
    public void AnExistingCatchTypeUsesItsToken()
    {
        TranslatedBody body = Changed(
            "public static bool Safe(Action a) { try { a(); return true; } catch (Exception) { return false; } }",
            "public static bool Safe(Action a) { try { a(); return true; } catch (InvalidOperationException) { return false; } }",
            "Game.World.Safe(System.Action)", out _, out _);

        Assert.Empty(body.Lowered.Relocations);
        Translated.AssertValid(body.Lowered);
    }

    [Fact]
    public void NewLocalsAreALocalsSignatureRelocation()
    {
        TranslatedBody body = Changed(
            "public static double Sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }",
            "public static double Sum(int n) { double s = 0; for (long i = 0; i < n; i++) s += i * 1.5; return s; }",
            "Game.World.Sum(int)", out _, out _);

        RelocationSpec locals = Assert.Single(body.Lowered.Relocations);
        Assert.Equal(RelocationKind.StandAloneSignature, locals.Kind);
        Assert.Equal(RelocationTable.LocalsSignature, locals.ILOffset);
        Assert.Equal(0x07, Translated.Blob(body, locals)[0]); // LOCAL_SIG
        Assert.Equal(0x1100_0000, BinaryPrimitives.ReadInt32LittleEndian(body.Lowered.Body.AsSpan(8)));
        Translated.AssertValid(body.Lowered);
    }

    [Fact]
    public void LocalsTheModuleHasUseItsSignature()
    {
        TranslatedBody body = Changed(
            "public static int Sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\n" +
            "public static int Other(int n) { int s = 1; for (int i = 0; i < n; i++) s *= i; return s; }",
            "public static int Sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += 2 * i; return s; }\n" +
            "public static int Other(int n) { int s = 1; for (int i = 0; i < n; i++) s *= i; return s; }",
            "Game.World.Sum(int)", out _, out _);

        Assert.Empty(body.Lowered.Relocations);
        Assert.NotEqual(0x1100_0000, BinaryPrimitives.ReadInt32LittleEndian(body.Lowered.Body.AsSpan(8)));
        Translated.AssertValid(body.Lowered);
    }

    [Fact]
    public void ATypeOfAnAssemblyTheModuleDoesNotReferenceIsRefused()
    {
        (ReloadTranslation translation, _, _) = Translated.Of(
            World("public static void Log() { }"),
            World("public static void Log() { Console.WriteLine(1); }"));

        Assert.Empty(translation.Bodies);
        ReloadRefusal refusal = Assert.Single(translation.Refusals);
        Assert.Equal(ReloadRefusalReason.UntranslatableReference, refusal.Reason);
        Assert.Equal("Game.World.Log()", refusal.Member);
        Assert.Contains("System.Console", refusal.Message, StringComparison.Ordinal);
        Assert.Contains("restart to add the reference", refusal.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AChangedLambdaBodyInAnExistingClosureClassMaps()
    {
        TranslatedBody body = ChangedGenerated(
            "public static Func<int, int> Scale() => x => x * 2;",
            "public static Func<int, int> Scale() => x => x * 5;",
            "Game.World+<>c.<Scale>b__");

        Assert.Empty(body.Lowered.Relocations);
        Translated.AssertValid(body.Lowered);
    }

    [Fact]
    public void AChangedAsyncMethodTranslatesItsMoveNext()
    {
        TranslatedBody body = ChangedGenerated(
            "public static async System.Threading.Tasks.Task<int> Load(int x) { await System.Threading.Tasks.Task.Yield(); return x + 1; }",
            "public static async System.Threading.Tasks.Task<int> Load(int x) { await System.Threading.Tasks.Task.Yield(); return x + 7; }",
            "Game.World+<Load>d__");

        Assert.EndsWith(".MoveNext()", body.Method.Member, StringComparison.Ordinal);
        Assert.Empty(body.Lowered.Relocations);
        Translated.AssertValid(body.Lowered);
    }

    [Fact]
    public void ANewLambdaDoesNotMapAndNamesItsMethod()
    {
        const string Run = "public static int Run(Func<int, int> f, int v) => f(v);\n";
        (ReloadTranslation translation, _, _) = Translated.Of(
            World(Run + "public static int Apply(int v) => Run(x => x * 2, v);"),
            World(Run + "public static int Apply(int v) => Run(x => x * 2, Run(y => y + 1, v));"));

        Assert.Empty(translation.Bodies);
        Assert.All(translation.Refusals, r => Assert.Equal(ReloadRefusalReason.GeneratedMemberDoesNotMap, r.Reason));
        Assert.Contains(translation.Refusals, r => r.Member == "Game.World.Apply" &&
                                                   r.Message.Contains("<Apply>b__", StringComparison.Ordinal) &&
                                                   r.Message.Contains("MethodAdded", StringComparison.Ordinal));
    }

    [Fact]
    public void ANewHoistedLocalInAStateMachineDoesNotMap()
    {
        (ReloadTranslation translation, _, _) = Translated.Of(
            World("public static async System.Threading.Tasks.Task<int> Load(int x) { await System.Threading.Tasks.Task.Yield(); return x; }"),
            World("public static async System.Threading.Tasks.Task<int> Load(int x) { int y = x * 2; await System.Threading.Tasks.Task.Yield(); return y + x; }"));

        Assert.Empty(translation.Bodies);
        Assert.Contains(translation.Refusals, r => r.Reason == ReloadRefusalReason.GeneratedMemberDoesNotMap &&
                                                   r.Member == "Game.World.Load" &&
                                                   r.Message.Contains("<y>5__", StringComparison.Ordinal) &&
                                                   r.Message.Contains("FieldAdded", StringComparison.Ordinal));
    }

    [Fact]
    public void ANewInstantiationOfTheModulesOwnGenericMethodIsAMethodSpecOnItsMethodDef()
    {
        const string Id = "public static T Id<T>(T v) => v;\n";
        TranslatedBody body = Changed(Id + "public static long Twice(long v) => v;",
                                      Id + "public static long Twice(long v) => Id(v) * 2;", "Game.World.Twice(long)",
                                      out _, out _);

        RelocationSpec spec = Assert.Single(body.Lowered.Relocations);
        Assert.Equal(RelocationKind.MethodSpec, spec.Kind);
        Assert.Equal(0x0600_0000u, spec.ParentToken & 0xFF00_0000u); // Id<T>: the loaded MethodDef
        Assert.Equal([0x0A, 0x01, 0x0A], Translated.Blob(body, spec)); // <long>
        Translated.AssertValid(body.Lowered);
    }

    [Fact]
    public void ANewNestedTypeIsATypeRefUnderItsEnclosingTypeRef()
    {
        TranslatedBody body = Changed("public static Type Kind() => typeof(int);",
                                      "public static Type Kind() => typeof(Environment.SpecialFolder);",
                                      "Game.World.Kind()", out _, out _);

        RelocationSpec[] typeRefs = Translated.OfKind(body, RelocationKind.TypeRef);
        Assert.Equal(2, typeRefs.Length);
        Assert.Equal("System.Environment", Translated.Name(body, typeRefs[0]));
        Assert.Equal(RelocationTable.NoOperand, typeRefs[0].ILOffset);
        Assert.Equal("SpecialFolder", Translated.Name(body, typeRefs[1]));
        Assert.Equal(1u, typeRefs[1].ParentRelocation); // the enclosing TypeRef, handed on
        Assert.Equal(1u, typeRefs[1].ILOffset); // ldtoken's operand
        Translated.AssertValid(body.Lowered);
    }

    [Fact]
    public void AGenericTypesOwnMembersUseItsExistingTypeSpecAndMemberRefs()
    {
        const string Box = "public class Box<T> { private T _value = default!; private int _reads; " +
                           "public T Peek() => _value; public int Reads() => _reads; ";
        (ReloadTranslation translation, string loaded, string rebuilt) = Translated.Of(
            World("") + "\n" + Box + "public T Get() { _reads++; return _value; } }",
            World("") + "\n" + Box + "public T Get() { _reads += 2; return Peek(); } }");

        TranslatedBody body = Translated.Single(translation, "Game.Box`1.Get()");
        Translated.AssertMapped(loaded, rebuilt, body);
        // Box<T>::_reads is a MemberRef the module has; Box<T>::Peek() is new, on the module's
        // existing TypeSpec Box<!0> as its parent token.
        RelocationSpec peek = Assert.Single(body.Lowered.Relocations);
        Assert.Equal(RelocationKind.MemberRef, peek.Kind);
        Assert.Equal("Peek", Translated.Name(body, peek));
        Assert.Equal(0x1B00_0000u, peek.ParentToken & 0xFF00_0000u);
        Translated.AssertValid(body.Lowered);
    }

    private static TranslatedBody ChangedGenerated(string before, string after, string memberPrefix)
    {
        (ReloadTranslation translation, string loaded, string rebuilt) = Translated.Of(World(before), World(after));
        Assert.Empty(translation.Refusals);
        TranslatedBody body = Assert.Single(translation.Bodies);
        Assert.StartsWith(memberPrefix, body.Method.Member, StringComparison.Ordinal);
        Assert.True(body.Method.IsGenerated);
        Translated.AssertMapped(loaded, rebuilt, body);
        return body;
    }

    [Fact]
    public void RudeEditsAreRefusedOneByOne()
    {
        (ReloadTranslation translation, _, _) = Translated.Of(
            World("public static int Speed(int x) => x;"),
            World("public static int Speed(long x) => 1;\npublic static float speed2;"));

        Assert.Empty(translation.Bodies);
        Assert.All(translation.Refusals, r => Assert.Equal(ReloadRefusalReason.RudeEdit, r.Reason));
        Assert.Contains(translation.Refusals, r => r.Member == "Game.World.speed2" &&
                                                  r.Message.StartsWith("FieldAdded: Game.World.speed2", StringComparison.Ordinal));
        Assert.Contains(translation.Refusals, r => r.Member == "Game.World.Speed(int)" &&
                                                  r.Message.StartsWith("SignatureChanged", StringComparison.Ordinal));
        Assert.Equal(2, translation.Refusals.Count);
    }

    [Fact]
    public void MoreThan64RelocationsAreTooLarge()
    {
        string strings = string.Join(" + ", Enumerable.Range(0, 65).Select(i => $"\"new string {i}\""));
        (ReloadTranslation translation, _, _) = Translated.Of(
            World("public static string Many() => \"\";"),
            World($"public static string Many() => string.Concat(new[] {{ {strings.Replace(" + ", ", ", StringComparison.Ordinal)} }});"));

        ReloadRefusal refusal = Assert.Single(translation.Refusals);
        Assert.Equal(ReloadRefusalReason.TooLarge, refusal.Reason);
        Assert.Equal("Game.World.Many()", refusal.Member);
        Assert.Contains("at most 64", refusal.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AnotherAssemblyIsNotARebuild()
    {
        string loaded = Builds.Compile(World(""));
        string other = Builds.Compile(World(""), "Other");

        ReloadTranslation translation = ReloadTranslation.Translate(loaded, other);

        ReloadRefusal refusal = Assert.Single(translation.Refusals);
        Assert.Equal(ReloadRefusalReason.NotARebuild, refusal.Reason);
        Assert.Contains("Other", refusal.Message, StringComparison.Ordinal);
    }
}
