using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

// Parses, binds and checks a small program: a start-up that runs a few thousand methods of a
// large library (Roslyn) and of the framework.
const string Source = """
    using System;
    using System.Linq;
    public static class Game
    {
        public static int Score(int[] runners) => runners.Where(r => r > 0).Sum() * 3 + 1;
        public static void Main() => Console.WriteLine(Score(new[] { 1, 2, 3 }));
    }
    """;
string[] trusted = ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator);
MetadataReference[] references = trusted
    .Where(p => Path.GetFileName(p) is "System.Runtime.dll" or "System.Private.CoreLib.dll" or "System.Linq.dll" or "System.Console.dll")
    .Select(p => (MetadataReference)MetadataReference.CreateFromFile(p))
    .ToArray();
CSharpCompilation compilation = CSharpCompilation.Create("Game", [CSharpSyntaxTree.ParseText(Source)], references,
    new CSharpCompilationOptions(OutputKind.ConsoleApplication));
Console.WriteLine($"diagnostics: {compilation.GetDiagnostics().Length}");
return 0;
