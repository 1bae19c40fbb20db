using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// Whether a method an update changes is back to what the game's build compiled: its
/// declaration is the build's, token for token, and every name, operator, conversion, foreach
/// and await in it binds to what it bound to in the build (a constant to the same value). Then
/// the build's own body is the method's right body, whatever the compiler would emit for it now
/// (lambdas, closures and state machines get new names in every update), and the game puts the
/// original back instead of keeping a copy: the original runs everywhere, inlined again.
/// </summary>
internal sealed class BaselineMatch(Compilation baseline, PEReader image)
{
    /// <summary>The build's MethodDef token of <paramref name="method"/> (of the new compilation)
    /// when it is back to the build's, else 0.</summary>
    public int Token(Compilation now, IMethodSymbol method, CancellationToken cancellationToken)
    {
        if (method.DeclaringSyntaxReferences.Length != 1 || Counterpart(method) is not IMethodSymbol original ||
            original.DeclaringSyntaxReferences.Length != 1)
            return 0;
        SyntaxNode after = method.DeclaringSyntaxReferences[0].GetSyntax(cancellationToken);
        SyntaxNode before = original.DeclaringSyntaxReferences[0].GetSyntax(cancellationToken);
        if (after is TypeDeclarationSyntax || !after.IsEquivalentTo(before, topLevel: false))
            return 0;
        if (!SameBindings(now.GetSemanticModel(after.SyntaxTree), after, baseline.GetSemanticModel(before.SyntaxTree), before,
                          cancellationToken))
            return 0;
        return MethodToken(original);
    }

    private static bool SameBindings(SemanticModel nowModel, SyntaxNode now, SemanticModel beforeModel, SyntaxNode before,
                                     CancellationToken cancellationToken)
    {
        using IEnumerator<SyntaxNode> a = now.DescendantNodesAndSelf().GetEnumerator();
        using IEnumerator<SyntaxNode> b = before.DescendantNodesAndSelf().GetEnumerator();
        while (a.MoveNext())
        {
            if (!b.MoveNext() || a.Current.RawKind != b.Current.RawKind)
                return false;
            if (Facts(nowModel, a.Current, cancellationToken) != Facts(beforeModel, b.Current, cancellationToken))
                return false;
        }
        return !b.MoveNext();
    }

    // What a node binds to, as text that compares across compilations.
    private static string Facts(SemanticModel model, SyntaxNode node, CancellationToken cancellationToken)
    {
        switch (node)
        {
            case ForEachStatementSyntax loop:
            {
                ForEachStatementInfo info = model.GetForEachStatementInfo(loop);
                return $"{Name(info.GetEnumeratorMethod)}|{Name(info.MoveNextMethod)}|{Name(info.CurrentProperty)}|" +
                       Name(info.ElementType);
            }
            case AwaitExpressionSyntax wait:
            {
                AwaitExpressionInfo info = model.GetAwaitExpressionInfo(wait);
                return $"{Name(info.GetAwaiterMethod)}|{Name(info.GetResultMethod)}|{Name(info.IsCompletedProperty)}";
            }
            case ExpressionSyntax expression:
            {
                SymbolInfo symbol = model.GetSymbolInfo(expression, cancellationToken);
                TypeInfo type = model.GetTypeInfo(expression, cancellationToken);
                Optional<object?> constant = model.GetConstantValue(expression, cancellationToken);
                IMethodSymbol? conversion = model.GetConversion(expression, cancellationToken).MethodSymbol;
                return $"{Name(symbol.Symbol)}|{string.Join(",", symbol.CandidateSymbols.Select(Name))}|{Name(type.Type)}|" +
                       $"{Name(type.ConvertedType)}|{(constant.HasValue ? "=" + constant.Value : "")}|{Name(conversion)}";
            }
            default:
                return "";
        }
    }

    // A symbol's full identity: containing types, parameters with their types, ref kinds and
    // default values (a call bakes the default in), return type.
    private static readonly SymbolDisplayFormat Identity = SymbolDisplayFormat.FullyQualifiedFormat
        .WithMemberOptions(SymbolDisplayMemberOptions.IncludeContainingType | SymbolDisplayMemberOptions.IncludeParameters |
                           SymbolDisplayMemberOptions.IncludeType | SymbolDisplayMemberOptions.IncludeRef |
                           SymbolDisplayMemberOptions.IncludeExplicitInterface | SymbolDisplayMemberOptions.IncludeConstantValue)
        .WithParameterOptions(SymbolDisplayParameterOptions.IncludeType | SymbolDisplayParameterOptions.IncludeModifiers |
                              SymbolDisplayParameterOptions.IncludeDefaultValue | SymbolDisplayParameterOptions.IncludeParamsRefOut);

    private static string Name(ISymbol? symbol) =>
        symbol is null ? "" : symbol.ToDisplayString(Identity) + "#" + symbol.Kind + (symbol.IsStatic ? "s" : "");

    private ISymbol? Counterpart(IMethodSymbol method)
    {
        if (Type(method.ContainingType) is not { } type)
            return null;
        string key = Signature(method);
        return type.GetMembers(method.Name).OfType<IMethodSymbol>().FirstOrDefault(m => Signature(m) == key);
    }

    private INamedTypeSymbol? Type(INamedTypeSymbol type) =>
        type.ContainingType is { } outer
            ? Type(outer)?.GetTypeMembers(type.Name, type.Arity).FirstOrDefault()
            : baseline.GetTypeByMetadataName(type.ContainingNamespace is { IsGlobalNamespace: false } ns
                ? ns.ToDisplayString() + "." + type.MetadataName
                : type.MetadataName);

    private static string Signature(IMethodSymbol m) =>
        $"{m.IsStatic}`{m.Arity}({string.Join(",", m.Parameters.Select(p => p.RefKind + " " + Name(p.Type)))}):{Name(m.ReturnType)}";

    // The build's MethodDef of a method of the baseline compilation: its type by name and
    // nesting, then the one method of that name with the same parameter count and simple
    // parameter type names (0 when that is not exactly one).
    private int MethodToken(IMethodSymbol method)
    {
        MetadataReader reader = image.GetMetadataReader();
        TypeDefinitionHandle type = Find(reader, method.ContainingType);
        if (type.IsNil)
            return 0;
        int found = 0, token = 0;
        foreach (MethodDefinitionHandle handle in reader.GetTypeDefinition(type).GetMethods())
        {
            MethodDefinition candidate = reader.GetMethodDefinition(handle);
            if (reader.GetString(candidate.Name) != method.MetadataName)
                continue;
            MethodSignature<string> signature = candidate.DecodeSignature(SimpleNames.Instance, null);
            if (signature.ParameterTypes.Length != method.Parameters.Length ||
                !signature.ParameterTypes.Zip(method.Parameters).All(p => p.First == SimpleNames.Of(p.Second)))
                continue;
            found++;
            token = System.Reflection.Metadata.Ecma335.MetadataTokens.GetToken(handle);
        }
        return found == 1 ? token : 0;
    }

    private static TypeDefinitionHandle Find(MetadataReader reader, INamedTypeSymbol type)
    {
        TypeDefinitionHandle outer = type.ContainingType is { } containing ? Find(reader, containing) : default;
        if (type.ContainingType is not null && outer.IsNil)
            return default;
        string ns = type.ContainingType is null && type.ContainingNamespace is { IsGlobalNamespace: false } n ? n.ToDisplayString() : "";
        IEnumerable<TypeDefinitionHandle> candidates = outer.IsNil
            ? reader.TypeDefinitions
            : reader.GetTypeDefinition(outer).GetNestedTypes();
        foreach (TypeDefinitionHandle handle in candidates)
        {
            TypeDefinition candidate = reader.GetTypeDefinition(handle);
            if (reader.GetString(candidate.Name) == type.MetadataName && reader.GetString(candidate.Namespace) == ns &&
                candidate.GetDeclaringType() == outer)
                return handle;
        }
        return default;
    }

    /// <summary>Parameter types as simple names ("Int32", "List`1", "Int32&amp;", "String[]"),
    /// from a signature and from a symbol alike.</summary>
    private sealed class SimpleNames : ISignatureTypeProvider<string, object?>
    {
        public static readonly SimpleNames Instance = new();

        public static string Of(IParameterSymbol parameter) =>
            Of(parameter.Type) + (parameter.RefKind == RefKind.None ? "" : "&");

        private static string Of(ITypeSymbol type) => type switch
        {
            IArrayTypeSymbol array => Of(array.ElementType) + "[" + new string(',', array.Rank - 1) + "]",
            IPointerTypeSymbol pointer => Of(pointer.PointedAtType) + "*",
            ITypeParameterSymbol p => (p.TypeParameterKind == TypeParameterKind.Method ? "!!" : "!") + p.Ordinal,
            INamedTypeSymbol named => named.MetadataName,
            _ => type.MetadataName,
        };

        public string GetPrimitiveType(PrimitiveTypeCode typeCode) => typeCode.ToString();

        public string GetTypeFromDefinition(MetadataReader reader, TypeDefinitionHandle handle, byte rawTypeKind) =>
            reader.GetString(reader.GetTypeDefinition(handle).Name);

        public string GetTypeFromReference(MetadataReader reader, TypeReferenceHandle handle, byte rawTypeKind) =>
            reader.GetString(reader.GetTypeReference(handle).Name);

        public string GetTypeFromSpecification(MetadataReader reader, object? genericContext, TypeSpecificationHandle handle,
                                               byte rawTypeKind) => "spec";

        public string GetSZArrayType(string elementType) => elementType + "[]";

        public string GetArrayType(string elementType, ArrayShape shape) => elementType + "[" + new string(',', shape.Rank - 1) + "]";

        public string GetByReferenceType(string elementType) => elementType + "&";

        public string GetPointerType(string elementType) => elementType + "*";

        public string GetGenericInstantiation(string genericType, System.Collections.Immutable.ImmutableArray<string> typeArguments) =>
            genericType;

        public string GetGenericTypeParameter(object? genericContext, int index) => "!" + index;

        public string GetGenericMethodParameter(object? genericContext, int index) => "!!" + index;

        public string GetFunctionPointerType(MethodSignature<string> signature) => "fnptr";

        public string GetModifiedType(string modifier, string unmodifiedType, bool isRequired) => unmodifiedType;

        public string GetPinnedType(string elementType) => elementType;
    }
}
