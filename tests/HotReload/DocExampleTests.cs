using System.Text.RegularExpressions;
using AlvorKit.Interception;
using AlvorKit.Interception.Allocations;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>
/// The C# examples of docs/ManagedApi.md that a game developer copies whole compile as written:
/// each is taken from the document by the sentence before it and compiled with Roslyn against the
/// AlvorKit assemblies and the framework, after a few declarations of what the example assumes
/// (an <c>interceptor</c>, the game's own methods) and with the usings every new project has
/// implicitly. A missing <c>using</c> of an AlvorKit namespace fails here.
/// </summary>
public sealed class DocExampleTests
{
    private static readonly string ManagedApi = File.ReadAllText(Path.Combine(Root(), "docs", "ManagedApi.md"));

    // What an example may assume: the interceptor it uses and the game's own code.
    private const string Assumed = """

        static partial class Assumed
        {
            internal static readonly AlvorKit.Interception.Interceptor interceptor = AlvorKit.Interception.Interceptor.Open();
            internal static void RunTheFrame() { }
        }
        """;

    // The usings a new .NET project has without writing them (ImplicitUsings).
    private const string ImplicitUsings = """
        global using System;
        global using System.Collections.Generic;
        global using System.IO;
        global using System.Linq;
        global using System.Net.Http;
        global using System.Threading;
        global using System.Threading.Tasks;
        """;

    [Theory]
    [InlineData("A sampled window, the mode a game can leave on:")]
    [InlineData("The reload API, in the game:")]
    public void TheExampleCompilesAsWritten(string before)
    {
        string example = Example(before);
        // Top-level statements after the example's usings; the assumptions as members in scope.
        string source = "using static Assumed;\n" + example + "\n" + Assumed;
        CSharpCompilation compilation = CSharpCompilation.Create("DocExample",
            [CSharpSyntaxTree.ParseText(source, new CSharpParseOptions(LanguageVersion.Latest)),
             CSharpSyntaxTree.ParseText(ImplicitUsings, new CSharpParseOptions(LanguageVersion.Latest))],
            [.. AlvorKit.Tests.FrameworkReferences.All,
             MetadataReference.CreateFromFile(typeof(Interceptor).Assembly.Location),
             MetadataReference.CreateFromFile(typeof(AllocationReport).Assembly.Location),
             MetadataReference.CreateFromFile(typeof(InterceptionException).Assembly.Location)],
            new CSharpCompilationOptions(OutputKind.ConsoleApplication));
        Diagnostic[] errors = [.. compilation.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error)];
        Assert.True(errors.Length == 0, $"the example after \"{before}\" does not compile:\n" +
                                        string.Join("\n", errors.Select(e => e.ToString())) + "\n" + example);
    }

    // The ```csharp block that follows the sentence.
    private static string Example(string before)
    {
        int at = ManagedApi.IndexOf(before, StringComparison.Ordinal);
        Assert.True(at >= 0, $"docs/ManagedApi.md no longer says \"{before}\"");
        Match block = new Regex(@"```csharp\n(.*?)```", RegexOptions.Singleline).Match(ManagedApi, at);
        Assert.True(block.Success, $"no C# example after \"{before}\"");
        return block.Groups[1].Value;
    }

    private static string Root()
    {
        for (string? dir = AppContext.BaseDirectory; dir is not null; dir = Path.GetDirectoryName(dir))
            if (File.Exists(Path.Combine(dir, "build.sh")) && Directory.Exists(Path.Combine(dir, "docs")))
                return dir;
        throw new InvalidOperationException("no checkout above " + AppContext.BaseDirectory);
    }
}
