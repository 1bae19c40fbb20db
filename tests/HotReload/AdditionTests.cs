using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Interception.HotReload;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>Edits that add members: what each adds goes into the reload's side assembly, which
/// loads beside the game, JIT-compiles, reaches the game's private members and runs; the changed
/// bodies that use it name it through relocations the native validator accepts.</summary>
public sealed class AdditionTests
{
    private const string Game = """
        using System;
        using System.Collections.Generic;
        using System.Linq;
        using System.Threading.Tasks;
        namespace Demo;
        public class Player
        {
            private int _hp = 10;
            public int Hp => _hp;
            public int Damage(int amount) => amount;
        }
        public static class Rules
        {
            public static int Bonus(int x) => x;
            public static int Sum(int[] xs) => xs.Sum();
            public static async Task<int> LoadAsync() { await Task.Yield(); return 1; }
        }
        public class Bag<T>
        {
            private readonly List<T> _items = new();
            public void Add(T item) => _items.Add(item);
            public int Count => _items.Count;
        }
        public struct Cell
        {
            public int X;
            public int Y;
            public int Sum() => X + Y;
        }
        public static class Spawner
        {
            public static int Spawn() => new Player().Hp;
            public static int Place() => new Cell().Sum();
        }
        """;

    private static string Edit(params (string From, string To)[] edits) =>
        edits.Aggregate(Game, (text, e) =>
        {
            Assert.Contains(e.From, text, StringComparison.Ordinal);
            return text.Replace(e.From, e.To, StringComparison.Ordinal);
        });

    [Fact]
    public void AnAddedStaticMethodIsAStaticOfTheMirrorAndItsCallerNamesIt()
    {
        using var edits = new Edits(Game);
        PreparedReload reload = edits.Apply(Edit(("public static int Bonus(int x) => x;",
            "public static int Bonus(int x) => Triple(x) + 1;\n    private static int Triple(int x) => x * 3;")));
        Edits.CompileAll(reload);
        MethodInfo triple = Edits.SideType(reload, "Demo.Rules").GetMethod("Triple")!;
        Assert.Equal(21, triple.Invoke(null, [7]));
        PreparedBody bonus = Assert.Single(reload.Bodies);
        Assert.Equal("Demo.Rules.Bonus(int)", bonus.Member);
        Assert.Single(Edits.Relocations(bonus, RelocationKind.AssemblyRef));
        Assert.Equal("Triple", Edits.Name(bonus, Assert.Single(Edits.Relocations(bonus, RelocationKind.MemberRef))));
        Assert.Contains("call Demo.Rules.Triple(int)", bonus.Difference, StringComparison.Ordinal);
        Edits.AssertValid(bonus);
    }

    [Fact]
    public void AnAddedInstanceMethodTakesItsThisFirstAndReadsThePrivateFieldsOfTheGame()
    {
        using var edits = new Edits(Game);
        PreparedReload reload = edits.Apply(Edit(("public int Damage(int amount) => amount;",
            "public int Damage(int amount) => Armor(amount);\n    private int Armor(int amount) => amount - _hp / 2;")));
        Edits.CompileAll(reload);
        MethodInfo armor = Edits.SideType(reload, "Demo.Player").GetMethod("Armor")!;
        Assert.True(armor.IsStatic);
        Assert.Equal("this", armor.GetParameters()[0].Name);
        object player = Activator.CreateInstance(edits.Game.GetType("Demo.Player")!)!;
        Assert.Equal(15, armor.Invoke(null, [player, 20]));
        TargetInvocationException nullThis = Assert.Throws<TargetInvocationException>(() => armor.Invoke(null, [null, 20]));
        Assert.IsType<NullReferenceException>(nullThis.InnerException);
        Edits.AssertValid(Assert.Single(reload.Bodies));
    }

    [Fact]
    public void AnAddedInstanceFieldIsKeptPerObjectAndExistingObjectsReadItsDefault()
    {
        using var edits = new Edits(Game);
        PreparedReload reload = edits.Apply(Edit(("private int _hp = 10;", "private int _hp = 10;\n    private int _shield = 5;"),
                                                 ("public int Damage(int amount) => amount;",
                                                  "public int Damage(int amount) => amount - _shield;")));
        Edits.CompileAll(reload);
        Type mirror = Edits.SideType(reload, "Demo.Player");
        MethodInfo get = mirror.GetMethod("_shield" + StoredFields.GetterSuffix)!;
        MethodInfo set = mirror.GetMethod("_shield" + StoredFields.SetterSuffix)!;
        object existing = Activator.CreateInstance(edits.Game.GetType("Demo.Player")!)!;
        object other = Activator.CreateInstance(edits.Game.GetType("Demo.Player")!)!;
        Assert.Equal(0, get.Invoke(null, [existing]));
        set.Invoke(null, [existing, 42]);
        Assert.Equal(42, get.Invoke(null, [existing]));
        Assert.Equal(0, get.Invoke(null, [other]));
        // The constructor that now stores the initializer, and Damage, which reads it.
        Assert.Equal(["Demo.Player.Damage(int)", "new Demo.Player()"], reload.Bodies.Select(b => b.Member).Order());
        foreach (PreparedBody body in reload.Bodies)
        {
            Assert.Contains(body.Lowered.Relocations, r => r.Description.Contains("_shield<", StringComparison.Ordinal));
            Edits.AssertValid(body);
        }
    }

    [Fact]
    public void AnAddedTypeIsCopiedWithItsMembersAndRuns()
    {
        using var edits = new Edits(Game);
        PreparedReload reload = edits.Apply(Edit(("public static int Bonus(int x) => x;",
            "public static int Bonus(int x) => new Combo(x).Score(3);"),
            ("public class Bag<T>", """
            public sealed class Combo(int start)
            {
                private readonly List<int> _hits = [start];
                public int Score(int times) { for (int i = 0; i < times; i++) _hits.Add(i); return _hits.Sum(); }
                public override string ToString() => $"combo {_hits.Count}";
            }
            public enum Grade { Low = 1, High = 7 }
            public record struct Hit(int Damage, Grade Grade);
            public class Bag<T>
            """)));
        Edits.CompileAll(reload);
        Type combo = Edits.SideType(reload, "Demo.Combo");
        object instance = Activator.CreateInstance(combo, 4)!;
        Assert.Equal(7, combo.GetMethod("Score")!.Invoke(instance, [3]));
        Assert.Equal("combo 4", instance.ToString());
        Type grade = Edits.SideType(reload, "Demo.Grade");
        Assert.True(grade.IsEnum);
        Assert.Equal(7, (int)Enum.Parse(grade, "High"));
        Type hit = Edits.SideType(reload, "Demo.Hit");
        Assert.True(hit.IsValueType);
        object h = Activator.CreateInstance(hit, 3, Enum.ToObject(grade, 1))!;
        Assert.Equal(3, hit.GetProperty("Damage")!.GetValue(h));
        Assert.Contains("Damage = 3", h.ToString(), StringComparison.Ordinal);
        Edits.AssertValid(Assert.Single(reload.Bodies));
    }

    [Fact]
    public void ANewLambdaAndClosureInAnExistingMethodGoIntoTheSideAssembly()
    {
        using var edits = new Edits(Game);
        PreparedReload reload = edits.Apply(Edit(("public static int Sum(int[] xs) => xs.Sum();",
            "public static int Sum(int[] xs) { int k = xs.Length; return xs.Select(v => v * 2).Where(v => v > k).Sum(); }")));
        Edits.CompileAll(reload);
        PreparedBody sum = Assert.Single(reload.Bodies);
        Assert.Equal("Demo.Rules.Sum(int[])", sum.Member);
        Edits.AssertValid(sum);
        Assert.NotNull(reload.Side);
    }

    [Fact]
    public void AnAwaitAddedToAnAsyncMethodMakesANewStateMachineThatRuns()
    {
        using var edits = new Edits(Game);
        PreparedReload reload = edits.Apply(Edit(("await Task.Yield(); return 1;",
            "await Task.Yield(); await Task.Delay(1); return 2;")));
        Edits.CompileAll(reload);
        PreparedBody stub = Assert.Single(reload.Bodies);
        Assert.Equal("Demo.Rules.LoadAsync()", stub.Member);
        Type machine = reload.Side!.Assembly!.GetTypes().Single(t => t.Name.StartsWith("<LoadAsync>", StringComparison.Ordinal));
        Assert.Equal("Rules", machine.DeclaringType!.Name);
        Edits.AssertValid(stub);
    }

    [Fact]
    public void AMethodAddedToAGenericTypeIsAGenericMirrorsStatic()
    {
        using var edits = new Edits(Game);
        PreparedReload reload = edits.Apply(Edit(("public int Count => _items.Count;",
            "public int Count => Twice();\n    private int Twice() => _items.Count * 2;")));
        Edits.CompileAll(reload);
        Type mirror = reload.Side!.Assembly!.GetType("Demo.Bag`1")!;
        Assert.True(mirror.IsGenericTypeDefinition);
        Type bagOfInt = edits.Game.GetType("Demo.Bag`1")!.MakeGenericType(typeof(int));
        object bag = Activator.CreateInstance(bagOfInt)!;
        bagOfInt.GetMethod("Add")!.Invoke(bag, [5]);
        MethodInfo twice = mirror.MakeGenericType(typeof(int)).GetMethod("Twice")!;
        Assert.Equal(2, twice.Invoke(null, [bag]));
        Edits.AssertValid(Assert.Single(reload.Bodies));
    }

    [Fact]
    public void AConstructorAddedToAClassIsAFactoryThatRunsItsBodyWithTheInitializers()
    {
        using var edits = new Edits(Game);
        PreparedReload reload = edits.Apply(Edit(
            ("public int Hp => _hp;", "public int Hp => _hp;\n    public Player(int hp) { _hp += hp; }\n    public Player() { }"),
            ("public static int Spawn() => new Player().Hp;", "public static int Spawn() => new Player(5).Hp;")));
        Edits.CompileAll(reload);
        Type mirror = Edits.SideType(reload, "Demo.Player");
        MethodInfo factory = mirror.GetMethod("<new>")!;
        Assert.True(factory.IsStatic);
        Assert.Equal(edits.Game.GetType("Demo.Player"), factory.ReturnType);
        object player = factory.Invoke(null, [5])!;
        // The field initializer (10) ran before the body (+5), as newobj would run them.
        Assert.Equal(15, edits.Game.GetType("Demo.Player")!.GetProperty("Hp")!.GetValue(player));
        PreparedBody spawn = Assert.Single(reload.Bodies, b => b.Member == "Demo.Spawner.Spawn()");
        Assert.True(spawn.Difference!.Contains("new Demo.Player(int)", StringComparison.Ordinal), spawn.Difference);
        // newobj of the added constructor became a call of its factory, named through the side assembly.
        Assert.Equal("<new>", Edits.Name(spawn, Assert.Single(Edits.Relocations(spawn, RelocationKind.MemberRef))));
        byte[] body = spawn.Lowered.Body;
        Assert.Equal(2, body[0] & 3); // a tiny header, then ldc.i4.5 and the call
        Assert.Equal([(byte)System.Reflection.Metadata.ILOpCode.Ldc_i4_5, (byte)System.Reflection.Metadata.ILOpCode.Call], body[1..3]);
        Edits.AssertValid(spawn);
    }

    [Fact]
    public void AConstructorAddedToAStructMakesTheValueAndRunsItsBody()
    {
        using var edits = new Edits(Game);
        PreparedReload reload = edits.Apply(Edit(
            ("public int Sum() => X + Y;", "public int Sum() => X + Y;\n    public Cell(int x) { X = x; Y = x * 2; }"),
            ("public static int Place() => new Cell().Sum();", "public static int Place() => new Cell(4).Sum();")));
        Edits.CompileAll(reload);
        MethodInfo factory = Edits.SideType(reload, "Demo.Cell").GetMethod("<new>")!;
        Type cell = edits.Game.GetType("Demo.Cell")!;
        Assert.Equal(cell, factory.ReturnType);
        object value = factory.Invoke(null, [4])!;
        Assert.Equal(12, cell.GetMethod("Sum")!.Invoke(value, []));
        Edits.AssertValid(Assert.Single(reload.Bodies));
    }

    [Fact]
    public void ASecondUpdateOfAMethodTheFirstAddedGoesToTheFirstSideAssembly()
    {
        using var edits = new Edits(Game);
        string first = Edit(("public static int Bonus(int x) => x;",
            "public static int Bonus(int x) => Triple(x);\n    private static int Triple(int x) => x * 3;"));
        PreparedReload added = edits.Apply(first);
        PreparedReload changed = edits.Apply(first.Replace("x * 3", "x * 4", StringComparison.Ordinal));
        Assert.Null(changed.Side);
        PreparedBody body = Assert.Single(changed.Bodies);
        Assert.Equal("Demo.Rules.Triple(int)", body.Member);
        Assert.Same(added.Side!.Module, body.Target.Module);
        Assert.Equal("IL_0001: ldc.i4.3 → ldc.i4.4", body.Difference);
        Edits.AssertValid(body);
    }
}
