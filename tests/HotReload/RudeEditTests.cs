using AlvorKit.Interception.HotReload;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>Edits a body replacement cannot carry: each is reported with its kind and the member
/// it is about, and is the only thing reported.</summary>
public sealed class RudeEditTests
{
    private static string Player(string members) => $$"""
        namespace Game.Logic;
        public class Player
        {
            private int _health = 100;
            public int Health() => _health;
        {{members}}
        }
        """;

    private static MemberEdit OnlyRudeEdit(string before, string after)
    {
        AssemblyComparison result = Builds.Compare(before, after);
        Assert.True(result.IsCompared, result.RefusalMessage);
        Assert.Empty(result.GeneratedChanges);
        Assert.Contains(result.Methods, m => m is { Member: "Game.Logic.Player.Health()", BodyChanged: false });
        Assert.Empty(result.ChangedMethods);
        return Assert.Single(result.RudeEdits);
    }

    [Fact]
    public void AFieldAdded()
    {
        MemberEdit edit = OnlyRudeEdit(Player(""), Player("public int health2;"));

        Assert.Equal(EditKind.FieldAdded, edit.Kind);
        Assert.Equal("FieldAdded: Game.Logic.Player.health2", edit.Message);
        Assert.False(edit.IsGenerated);
    }

    [Fact]
    public void AFieldRemoved()
    {
        MemberEdit edit = OnlyRudeEdit(Player("public int health2;"), Player(""));

        Assert.Equal("FieldRemoved: Game.Logic.Player.health2", edit.Message);
    }

    [Fact]
    public void AFieldsTypeChanged()
    {
        MemberEdit edit = OnlyRudeEdit(Player("public int health2;"), Player("public long health2;"));

        Assert.Equal("FieldTypeChanged: Game.Logic.Player.health2 (int → long)", edit.Message);
    }

    [Fact]
    public void AMethodAdded()
    {
        MemberEdit edit = OnlyRudeEdit(Player(""), Player("public static int Jump(int height) => height;"));

        Assert.Equal("MethodAdded: Game.Logic.Player.Jump(int)", edit.Message);
    }

    [Fact]
    public void AMethodRemoved()
    {
        MemberEdit edit = OnlyRudeEdit(Player("public static int Jump(int height) => height;"), Player(""));

        Assert.Equal("MethodRemoved: Game.Logic.Player.Jump(int)", edit.Message);
    }

    [Fact]
    public void ASignatureChanged()
    {
        MemberEdit edit = OnlyRudeEdit(Player("public static int Jump(int height) => height;"),
                                       Player("public static long Jump(long height) => height;"));

        Assert.Equal(EditKind.SignatureChanged, edit.Kind);
        Assert.Equal("SignatureChanged: Game.Logic.Player.Jump(int) (now Game.Logic.Player.Jump(long) : long)",
                     edit.Message);
    }

    [Fact]
    public void AMethodMadeVirtual()
    {
        MemberEdit edit = OnlyRudeEdit(Player("public int Jump(int height) => height;"),
                                       Player("public virtual int Jump(int height) => height;"));

        Assert.Equal(EditKind.MethodAttributesChanged, edit.Kind);
        Assert.Equal("Game.Logic.Player.Jump(int)", edit.Member);
    }

    [Fact]
    public void ATypeAdded()
    {
        MemberEdit edit = OnlyRudeEdit(Player(""), Player("") + "public class Enemy { public int Hp; }");

        Assert.Equal("TypeAdded: Game.Logic.Enemy", edit.Message);
    }

    [Fact]
    public void ATypeRemoved()
    {
        MemberEdit edit = OnlyRudeEdit(Player("") + "public class Enemy { public int Hp; }", Player(""));

        Assert.Equal("TypeRemoved: Game.Logic.Enemy", edit.Message);
    }

    [Fact]
    public void ANestedTypeAddedIsNamedWithItsEnclosingType()
    {
        MemberEdit edit = OnlyRudeEdit(Player(""), Player("public sealed class Inventory { }"));

        Assert.Equal("TypeAdded: Game.Logic.Player+Inventory", edit.Message);
    }

    [Fact]
    public void AClassMadeAStruct()
    {
        AssemblyComparison result = Builds.Compare(Player("") + "public class Enemy { public int Hp; }",
                                                   Player("") + "public struct Enemy { public int Hp; }");

        // A struct has no default constructor of its own.
        Assert.Equal(["TypeKindChanged: Game.Logic.Enemy (class → struct)", "MethodRemoved: Game.Logic.Enemy..ctor()"],
                     result.RudeEdits.Select(e => e.Message));
        Assert.Empty(result.ChangedMethods);
    }

    [Fact]
    public void ABaseTypeChanged()
    {
        AssemblyComparison result = Builds.Compare(Player("") + "public class Enemy { }",
                                                   Player("") + "public class Enemy : System.Exception { }");

        MemberEdit edit = Assert.Single(result.RudeEdits);
        Assert.Equal("BaseTypeChanged: Game.Logic.Enemy (System.Object → System.Exception)", edit.Message);
        // The constructor now calls the new base's.
        MethodComparison constructor = Assert.Single(result.ChangedMethods);
        Assert.Equal("Game.Logic.Enemy..ctor()", constructor.Member);
        Assert.Equal("IL_0001: call instance System.Object::.ctor() : void → instance System.Exception::.ctor() : void",
                     constructor.Difference);
    }

    [Fact]
    public void ATypeSealed()
    {
        MemberEdit edit = OnlyRudeEdit(Player("") + "public class Enemy { }", Player("") + "public sealed class Enemy { }");

        Assert.Equal(EditKind.TypeAttributesChanged, edit.Kind);
        Assert.Equal("Game.Logic.Enemy", edit.Member);
    }

    [Fact]
    public void ARenameIsARemovalAndAnAddition()
    {
        AssemblyComparison result = Builds.Compare(Player("public static int Jump(int height) => height;"),
                                                   Player("public static int Leap(int height) => height;"));

        Assert.Equal(["MethodRemoved: Game.Logic.Player.Jump(int)", "MethodAdded: Game.Logic.Player.Leap(int)"],
                     result.RudeEdits.Select(e => e.Message));
        Assert.Empty(result.GeneratedChanges);
    }

    [Fact]
    public void AnotherAssemblyIsRefused()
    {
        AssemblyComparison result = Builds.Compare(Player(""), Player(""), rebuiltName: "Game2");

        Assert.False(result.IsCompared);
        Assert.Equal(ComparisonRefusal.AssemblyNameDiffers, result.Refusal);
        Assert.Equal("the rebuild is Game2, not Game", result.RefusalMessage);
        Assert.Empty(result.Methods);
        Assert.Empty(result.RudeEdits);
    }

    [Fact]
    public void AFileThatIsNoAssemblyIsRefused()
    {
        string loaded = Builds.Compile(Player(""));
        string garbage = Path.Combine(Path.GetDirectoryName(loaded)!, "not-an-assembly.dll");
        File.WriteAllBytes(garbage, "MZ but nothing else"u8.ToArray());

        AssemblyComparison result = AssemblyComparer.Compare(loaded, garbage);

        Assert.Equal(ComparisonRefusal.NotAnAssembly, result.Refusal);
        Assert.StartsWith("the rebuild: ", result.RefusalMessage, StringComparison.Ordinal);
        Assert.Empty(result.Methods);
    }
}
