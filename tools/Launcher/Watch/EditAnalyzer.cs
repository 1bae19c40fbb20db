using AlvorKit.Interception.HotReload;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Emit;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>An edit refused before anything is emitted, named by the user's member and where it is.</summary>
/// <param name="Member">The member, as people write it.</param>
/// <param name="Location">"Scoring.cs(12,5)".</param>
/// <param name="Message">What is refused and why, and what to do.</param>
internal sealed record EditRefusal(string Member, string Location, string Message)
{
    public override string ToString() => $"{Location}: {Message}";
}

/// <summary>What a save changes, as the compiler's Edit and Continue emitter takes it: the
/// semantic edits (updates of changed members, inserts of added ones), the symbols added, and
/// what is refused or applies only at the next start.</summary>
internal sealed record EditPlan(IReadOnlyList<SemanticEdit> Edits, IReadOnlySet<ISymbol> Added,
                                IReadOnlyList<EditRefusal> Refusals, IReadOnlyList<ReloadNotice> Notices)
{
    public bool IsEmpty => Edits.Count == 0;
}

/// <summary>
/// The semantic edits of a save, computed from the documents it changed: the declarations of
/// each changed document before and after are matched by what they declare (kind, containing
/// type, name, parameter types); a member whose declaration changed is updated, one that is new
/// is inserted, one that is gone stays in the running game. Every rule that decides what a
/// running module can take is here, by name: a change to a type's shape (base, interfaces, kind,
/// generic parameters, layout), to a member's signature-affecting modifiers, a virtual or
/// abstract member added to or removed from a type that lives, an instance field added to a
/// struct, a member added to an interface, an explicit interface implementation or a
/// constructor added to a type that lives, a field's type or a parameter's default value
/// changed — each refused with the member and its location; a static constructor or static
/// field initializer changed, an entry point's top-level statements changed, or custom
/// attributes changed — said as notices (they take effect at the next start). A changed
/// constant updates every method that uses it; a field initializer updates the constructors.
/// </summary>
internal static class EditAnalyzer
{
    /// <summary>The plan for the trees that changed between <paramref name="before"/> and
    /// <paramref name="after"/> (pairs of old and new trees; a tree added or removed has one side null).</summary>
    public static EditPlan Analyze(Compilation before, Compilation after,
                                   IReadOnlyList<(SyntaxTree? Old, SyntaxTree? New)> changed, CancellationToken cancellationToken)
    {
        var analysis = new Analysis(before, after, cancellationToken);
        foreach ((SyntaxTree? old, SyntaxTree? now) in changed)
            analysis.Document(old, now);
        return analysis.Finish();
    }

    private sealed class Analysis(Compilation before, Compilation after, CancellationToken cancellationToken)
    {
        private readonly List<SemanticEdit> _edits = [];
        private readonly HashSet<ISymbol> _updated = new(SymbolEqualityComparer.Default);
        private readonly HashSet<ISymbol> _added = new(SymbolEqualityComparer.Default);
        private readonly HashSet<INamedTypeSymbol> _initializersChanged = new(SymbolEqualityComparer.Default);
        private readonly List<IFieldSymbol> _constantsChanged = [];
        private readonly HashSet<string> _removedNames = new(StringComparer.Ordinal);
        private readonly List<EditRefusal> _refusals = [];
        private readonly List<ReloadNotice> _notices = [];

        public void Document(SyntaxTree? oldTree, SyntaxTree? newTree)
        {
            Dictionary<string, Declared> old = oldTree is null ? [] : Declarations(before, oldTree);
            Dictionary<string, Declared> now = newTree is null ? [] : Declarations(after, newTree);
            foreach ((string key, Declared n) in now)
            {
                if (old.TryGetValue(key, out Declared? o))
                    Changed(o, n);
                else
                    Inserted(n, old);
            }
            foreach ((string key, Declared o) in old)
            {
                if (!now.ContainsKey(key))
                    Removed(o, now);
            }
        }

        public EditPlan Finish()
        {
            foreach (IFieldSymbol constant in _constantsChanged)
                UpdateUsersOf(constant);
            // A member removed (or whose signature changed: removed, then inserted): every use
            // of its name, anywhere, may now bind to another member, so it is compiled again.
            foreach (string name in _removedNames)
                UpdateUsersOfName(name);
            foreach (INamedTypeSymbol type in _initializersChanged)
                UpdateConstructorsOf(type);
            return new EditPlan(_edits, _added, _refusals, _notices);
        }

        // ---------------------------------------------------------------- one declaration

        private void Changed(Declared old, Declared now)
        {
            if (now.Symbol is INamedTypeSymbol type)
            {
                TypeChanged((INamedTypeSymbol)old.Symbol, type, old.Node, now.Node);
                return;
            }
            if (!SameModifiers(old.Symbol, now.Symbol, out string? modifier))
            {
                Refuse(now, $"its {modifier} changed, which a running type cannot take (restart to take it)");
                return;
            }
            if (AttributesChanged(old.Node, now.Node))
                Notice(ReloadNoticeKind.MetadataNotUpdated, now,
                       "custom attributes changed: the running module keeps the ones it loaded until the next start");
            switch (now.Symbol)
            {
                case IFieldSymbol field:
                    FieldChanged((IFieldSymbol)old.Symbol, field, old, now);
                    break;
                case IMethodSymbol method when now.Node is TypeDeclarationSyntax primary:
                    // A primary constructor: its parameters and the base call its type declares
                    // (the initializers it runs are followed field by field).
                    var before = (TypeDeclarationSyntax)old.Node;
                    if (!Equivalent(before.ParameterList, primary.ParameterList) || !Equivalent(before.BaseList, primary.BaseList))
                        MethodChanged((IMethodSymbol)old.Symbol, method, old, now);
                    break;
                case IMethodSymbol method:
                    if (!old.Node.IsEquivalentTo(now.Node, topLevel: false))
                        MethodChanged((IMethodSymbol)old.Symbol, method, old, now);
                    break;
                case IPropertySymbol property:
                    // Its accessors are declarations of their own; its initializer runs in the constructors.
                    if (!Equivalent(Initializer(old.Node), Initializer(now.Node)))
                        InitializerChanged(property.IsStatic, property.ContainingType, now);
                    break;
            }
        }

        private void MethodChanged(IMethodSymbol old, IMethodSymbol now, Declared oldDeclaration, Declared newDeclaration)
        {
            if (!SameDefaults(old, now))
            {
                Refuse(newDeclaration, "a parameter's default value changed: callers compile it into their calls (restart to take it)");
                return;
            }
            if (now.MethodKind == MethodKind.StaticConstructor)
            {
                Notice(ReloadNoticeKind.TakesEffectAtNextStart, newDeclaration,
                       "its static constructor changed: it ran when the type was first used and runs once per process, so " +
                       "the change takes effect at the next start");
                return;
            }
            if (now.IsImplicitlyDeclared || (now.MethodKind == MethodKind.Ordinary && now.Name == WellKnownMemberNames.TopLevelStatementsEntryPointMethodName))
            {
                Notice(ReloadNoticeKind.TakesEffectAtNextStart, newDeclaration,
                       "the program's top-level statements changed: the entry point runs once, so the change takes effect at " +
                       "the next start (move code that runs every frame into a method to reload it)");
                return;
            }
            Update(old, now);
            _ = oldDeclaration;
        }

        private void FieldChanged(IFieldSymbol old, IFieldSymbol now, Declared oldDeclaration, Declared newDeclaration)
        {
            if (!SymbolEqualityComparer.Default.Equals(old.Type, now.Type) && old.Type.ToDisplayString() != now.Type.ToDisplayString())
            {
                Refuse(newDeclaration, $"its type changed from {old.Type.ToDisplayString()} to {now.Type.ToDisplayString()}, " +
                                       "which a running type cannot take (restart to take it)");
                return;
            }
            if (now.IsConst)
            {
                if (!Equals(old.ConstantValue, now.ConstantValue))
                    _constantsChanged.Add(now);
                return;
            }
            if (!Equivalent(Initializer(oldDeclaration.Node), Initializer(newDeclaration.Node)))
                InitializerChanged(now.IsStatic, now.ContainingType, newDeclaration);
        }

        private void InitializerChanged(bool isStatic, INamedTypeSymbol type, Declared declared)
        {
            if (isStatic)
                Notice(ReloadNoticeKind.TakesEffectAtNextStart, declared,
                       "its initializer changed: static initializers run once per process, so the change takes effect at " +
                       "the next start (the field keeps its value)");
            else
                _initializersChanged.Add(type);
        }

        private static bool Equivalent(SyntaxNode? a, SyntaxNode? b) =>
            a is null ? b is null : b is not null && a.IsEquivalentTo(b, topLevel: false);

        private void TypeChanged(INamedTypeSymbol old, INamedTypeSymbol now, SyntaxNode oldNode, SyntaxNode newNode)
        {
            string? what =
                old.TypeKind != now.TypeKind ? "kind" :
                !SameType(old.BaseType, now.BaseType) ? "base type" :
                !SameTypes(old.Interfaces, now.Interfaces) ? "interfaces" :
                old.Arity != now.Arity || !SameConstraints(old, now) ? "generic parameters" :
                old.IsAbstract != now.IsAbstract || old.IsSealed != now.IsSealed || old.IsStatic != now.IsStatic ||
                old.IsReadOnly != now.IsReadOnly || old.IsRefLikeType != now.IsRefLikeType ? "modifiers" :
                old.DeclaredAccessibility != now.DeclaredAccessibility ? "accessibility" :
                old.EnumUnderlyingType is { } u && !SameType(u, now.EnumUnderlyingType) ? "underlying type" :
                Layout(old) != Layout(now) ? "layout" :
                null;
            if (what is not null)
            {
                Refuse(new Declared(now, newNode), $"the type's {what} changed, which a running type cannot take (restart to take it)");
                return;
            }
            if (TypeAttributesChanged(oldNode, newNode))
                Notice(ReloadNoticeKind.MetadataNotUpdated, new Declared(now, newNode),
                       "the type's custom attributes changed: the running module keeps the ones it loaded until the next start");
            if (now.IsRecord && !RecordShapeSame(old, now))
                UpdateSynthesized(old, now);
            if (!Equivalent(PrimaryParameters(oldNode), PrimaryParameters(newNode)))
                _initializersChanged.Add(now);
        }

        private void Inserted(Declared now, Dictionary<string, Declared> old)
        {
            ISymbol symbol = now.Symbol;
            INamedTypeSymbol? container = symbol.ContainingType;
            bool containerIsNew = container is not null && !Existed(container);
            if (containerIsNew)
                return; // inserted with its type
            if (symbol is INamedTypeSymbol type)
            {
                if (Existed(type))
                    return; // another part of a partial type, in another document
                Insert(type);
                return;
            }
            if (Existed(symbol))
                return; // moved from another document (a partial type's other part): not new
            if (container is null)
                return;
            if (container.TypeKind == TypeKind.Interface)
            {
                Refuse(now, $"a member added to the interface {container.ToDisplayString()}: its implementers are laid out " +
                            "(restart to take it)");
                return;
            }
            switch (symbol)
            {
                case IMethodSymbol method:
                    InsertedMethod(method, now);
                    break;
                case IFieldSymbol field:
                    InsertedField(field, now);
                    break;
                case IPropertySymbol property:
                    if (IsVirtualish(property))
                        Refuse(now, "a virtual, abstract or overriding property added to a type that lives: its method table is " +
                                    "laid out (restart to take it)");
                    else if (property.ExplicitInterfaceImplementations.Length > 0)
                        Refuse(now, "an explicit interface implementation added to a type that lives (restart to take it)");
                    else if (!property.IsStatic && property.IsAutoProperty() && !StoresFields(container, now))
                        return;
                    else
                        InsertMember(property, now);
                    break;
                case IEventSymbol @event:
                    if (IsVirtualish(@event))
                        Refuse(now, "a virtual, abstract or overriding event added to a type that lives (restart to take it)");
                    else if (!@event.IsStatic && @event.AddMethod?.IsImplicitlyDeclared == true && !StoresFields(container, now))
                        return;
                    else
                        InsertMember(@event, now);
                    break;
            }
            _ = old;
        }

        private void InsertedMethod(IMethodSymbol method, Declared now)
        {
            switch (method.MethodKind)
            {
                case MethodKind.StaticConstructor:
                    Notice(ReloadNoticeKind.TakesEffectAtNextStart, now,
                           "a static constructor added to a type that was initialized already never runs in this process; it " +
                           "takes effect at the next start");
                    return;
                case MethodKind.Constructor when method.ContainingType.IsGenericType:
                    Refuse(now, "a constructor added to a generic type that lives: not carried (restart to take it)");
                    return;
                case MethodKind.Constructor:
                    InsertMember(method, now);
                    return;
                case MethodKind.Destructor:
                    Refuse(now, "a finalizer added to a type that lives: it overrides Finalize (restart to take it)");
                    return;
                case MethodKind.PropertyGet or MethodKind.PropertySet or MethodKind.EventAdd or MethodKind.EventRemove:
                    return; // with their property or event
            }
            if (IsVirtualish(method))
                Refuse(now, "a virtual, abstract or overriding method added to a type that lives: its method table is laid " +
                            "out (restart to take it)");
            else if (method.ExplicitInterfaceImplementations.Length > 0)
                Refuse(now, "an explicit interface implementation added to a type that lives (restart to take it)");
            else if (method.IsExtern || method.GetDllImportData() is not null)
                Refuse(now, "an extern or DllImport method added to a type that lives (restart to take it)");
            else
                InsertMember(method, now);
        }

        private void InsertedField(IFieldSymbol field, Declared now)
        {
            if (field.ContainingType.TypeKind == TypeKind.Enum && Existed(field.ContainingType))
            {
                Refuse(now, $"a member added to the enum {field.ContainingType.ToDisplayString()}, which lives: its names and " +
                            "values are the running type's (restart to take it)");
                return;
            }
            if (field.IsConst)
            {
                InsertMember(field, now);
                return;
            }
            if (!field.IsStatic && !StoresFields(field.ContainingType, now))
                return;
            InsertMember(field, now);
            if (Initializer(now.Node) is null)
                return;
            if (field.IsStatic)
                Notice(ReloadNoticeKind.TakesEffectAtNextStart, now,
                       "a static field added with an initializer: static initializers ran already, so it holds its default " +
                       "value until the next start");
            else
                _initializersChanged.Add(field.ContainingType);
        }

        // An instance field (or auto-property, or field-like event) added to a type: kept per
        // object, which only a class without a fixed layout can have.
        private bool StoresFields(INamedTypeSymbol type, Declared now)
        {
            if (type.IsValueType)
            {
                Refuse(now, $"an instance field added to the struct {type.ToDisplayString()}: its layout is fixed (restart to take it)");
                return false;
            }
            if (Layout(type) != "auto")
            {
                Refuse(now, $"an instance field added to {type.ToDisplayString()}, whose layout is {Layout(type)} (restart to take it)");
                return false;
            }
            return true;
        }

        private void Removed(Declared old, Dictionary<string, Declared> now)
        {
            ISymbol symbol = old.Symbol;
            if (Exists(symbol))
                return; // moved to another document
            if (symbol.ContainingType is { } container && !Exists(container))
                return; // removed with its type
            if (symbol is IMethodSymbol
                {
                    MethodKind: MethodKind.PropertyGet or MethodKind.PropertySet or MethodKind.EventAdd
                                               or MethodKind.EventRemove
                })
                return;
            if (IsVirtualish(symbol) && symbol is not INamedTypeSymbol)
            {
                Refuse(old, "a virtual, abstract or overriding member removed from a type that lives: its method table is laid " +
                            "out (restart to take it)");
                return;
            }
            if (symbol is IFieldSymbol { IsStatic: false, IsConst: false } field && Initializer(old.Node) is not null)
                _initializersChanged.Add(field.ContainingType);
            if (symbol is IMethodSymbol or IPropertySymbol or IFieldSymbol or IEventSymbol)
                _removedNames.Add(symbol.Name);
            Notice(ReloadNoticeKind.RemovedMemberStays, old,
                   "removed from the source: it stays in the running game until the next start, and nothing in the updated " +
                   "code calls it");
            _ = now;
        }

        // ---------------------------------------------------------------- edits

        private void Update(ISymbol old, ISymbol now)
        {
            if (_updated.Add(now) && !_added.Contains(now))
                _edits.Add(new SemanticEdit(SemanticEditKind.Update, old, now));
        }

        private void Insert(ISymbol now)
        {
            if (_added.Add(now))
                _edits.Add(new SemanticEdit(SemanticEditKind.Insert, null, now));
        }

        private void InsertMember(ISymbol member, Declared now)
        {
            if (member.ContainingType is { } type && !Existed(type))
                return;
            Insert(member);
            _ = now;
        }

        // Every method and accessor of the new compilation that uses a constant whose value
        // changed: the compiler wrote the value into them.
        private void UpdateUsersOf(IFieldSymbol constant)
        {
            foreach (SyntaxTree tree in after.SyntaxTrees)
            {
                SyntaxNode root = tree.GetRoot(cancellationToken);
                SemanticModel? model = null;
                foreach (SimpleNameSyntax name in root.DescendantNodes().OfType<SimpleNameSyntax>())
                {
                    if (name.Identifier.ValueText != constant.Name)
                        continue;
                    model ??= after.GetSemanticModel(tree);
                    if (!SymbolEqualityComparer.Default.Equals(model.GetSymbolInfo(name, cancellationToken).Symbol, constant))
                        continue;
                    UpdateEnclosing(name, model);
                }
            }
        }

        private void UpdateUsersOfName(string name)
        {
            foreach (SyntaxTree tree in after.SyntaxTrees)
            {
                SyntaxNode root = tree.GetRoot(cancellationToken);
                SemanticModel? model = null;
                foreach (SimpleNameSyntax use in root.DescendantNodes().OfType<SimpleNameSyntax>())
                {
                    if (use.Identifier.ValueText != name || use.Parent is MemberDeclarationSyntax)
                        continue;
                    model ??= after.GetSemanticModel(tree);
                    UpdateEnclosing(use, model);
                }
            }
        }

        private void UpdateEnclosing(SyntaxNode node, SemanticModel model)
        {
            foreach (SyntaxNode ancestor in node.Ancestors())
            {
                switch (ancestor)
                {
                    case BaseMethodDeclarationSyntax or AccessorDeclarationSyntax or LocalFunctionStatementSyntax
                        or AnonymousFunctionExpressionSyntax:
                        if (ancestor is LocalFunctionStatementSyntax or AnonymousFunctionExpressionSyntax)
                            continue; // part of its containing member's body
                        if (model.GetDeclaredSymbol(ancestor, cancellationToken) is IMethodSymbol method)
                            UpdateExisting(method);
                        return;
                    case ArrowExpressionClauseSyntax { Parent: PropertyDeclarationSyntax property }:
                        if (model.GetDeclaredSymbol(property, cancellationToken) is IPropertySymbol { GetMethod: { } getter })
                            UpdateExisting(getter);
                        return;
                    case VariableDeclaratorSyntax declarator when declarator.Parent?.Parent is FieldDeclarationSyntax:
                        if (model.GetDeclaredSymbol(declarator, cancellationToken) is IFieldSymbol { IsConst: false } field)
                        {
                            if (field.IsStatic)
                                _notices.Add(new ReloadNotice(ReloadNoticeKind.TakesEffectAtNextStart, Display(field),
                                    $"{Display(field)}: its initializer uses a constant that changed; static initializers run " +
                                    "once, so it takes effect at the next start"));
                            else
                                _initializersChanged.Add(field.ContainingType);
                        }
                        return;
                    case GlobalStatementSyntax:
                        return; // the entry point runs once
                }
            }
        }

        private void UpdateExisting(IMethodSymbol now)
        {
            if (Counterpart(now) is IMethodSymbol old)
                Update(old, now);
        }

        // Instance field initializers run in every constructor that does not call this(...).
        private void UpdateConstructorsOf(INamedTypeSymbol type)
        {
            if (!Existed(type))
                return;
            foreach (IMethodSymbol constructor in type.InstanceConstructors)
            {
                if (constructor.DeclaringSyntaxReferences.FirstOrDefault()?.GetSyntax(cancellationToken) is
                        ConstructorDeclarationSyntax { Initializer.ThisOrBaseKeyword.ValueText: "this" })
                    continue;
                UpdateExisting(constructor);
            }
        }

        // A record's compiler-written members (Equals, GetHashCode, PrintMembers, the copy
        // constructor, Deconstruct) follow its properties.
        private void UpdateSynthesized(INamedTypeSymbol old, INamedTypeSymbol now)
        {
            foreach (IMethodSymbol method in now.GetMembers().OfType<IMethodSymbol>().Where(m => m.IsImplicitlyDeclared))
            {
                if (method.MethodKind is MethodKind.StaticConstructor)
                    continue;
                if (Counterpart(method) is IMethodSymbol before)
                    Update(before, method);
                else if (!IsVirtualish(method) || old.GetMembers(method.Name).Length > 0)
                    Insert(method);
            }
        }

        private static bool RecordShapeSame(INamedTypeSymbol old, INamedTypeSymbol now) =>
            old.GetMembers().OfType<IPropertySymbol>().Select(p => p.Name + ":" + p.Type.ToDisplayString())
                .SequenceEqual(now.GetMembers().OfType<IPropertySymbol>().Select(p => p.Name + ":" + p.Type.ToDisplayString())) &&
            old.GetMembers().OfType<IFieldSymbol>().Count() == now.GetMembers().OfType<IFieldSymbol>().Count();

        // ---------------------------------------------------------------- matching

        /// <summary>The symbol of the old compilation that <paramref name="now"/> is, by key.</summary>
        private ISymbol? Counterpart(ISymbol now)
        {
            string key = Key(now);
            INamedTypeSymbol? container = now.ContainingType is { } type ? Counterpart(type) as INamedTypeSymbol : null;
            if (now is INamedTypeSymbol named)
            {
                if (named.ContainingType is null)
                    return before.GetTypeByMetadataName(MetadataName(named));
                return container?.GetTypeMembers(named.Name, named.Arity).FirstOrDefault();
            }
            return container?.GetMembers(now.Name).FirstOrDefault(m => Key(m) == key);
        }

        private bool Existed(ISymbol now) => Counterpart(now) is not null;

        private bool Exists(ISymbol old)
        {
            INamedTypeSymbol? container = old.ContainingType is { } type ? ExistsAsType(type) : null;
            if (old is INamedTypeSymbol named)
                return named.ContainingType is null
                    ? after.GetTypeByMetadataName(MetadataName(named)) is not null
                    : container?.GetTypeMembers(named.Name, named.Arity).Length > 0;
            string key = Key(old);
            return container?.GetMembers(old.Name).Any(m => Key(m) == key) == true;
        }

        private INamedTypeSymbol? ExistsAsType(INamedTypeSymbol old) =>
            old.ContainingType is null
                ? after.GetTypeByMetadataName(MetadataName(old))
                : ExistsAsType(old.ContainingType)?.GetTypeMembers(old.Name, old.Arity).FirstOrDefault();

        private static string MetadataName(INamedTypeSymbol type) =>
            type.ContainingNamespace is { IsGlobalNamespace: false } ns ? ns.ToDisplayString() + "." + type.MetadataName : type.MetadataName;

        private Dictionary<string, Declared> Declarations(Compilation compilation, SyntaxTree tree)
        {
            SemanticModel model = compilation.GetSemanticModel(tree);
            var declared = new Dictionary<string, Declared>(StringComparer.Ordinal);
            SyntaxNode root = tree.GetRoot(cancellationToken);
            foreach (SyntaxNode node in root.DescendantNodesAndSelf(n => n is CompilationUnitSyntax or BaseNamespaceDeclarationSyntax
                         or TypeDeclarationSyntax or PropertyDeclarationSyntax or IndexerDeclarationSyntax or EventDeclarationSyntax
                         or AccessorListSyntax or FieldDeclarationSyntax or EventFieldDeclarationSyntax or VariableDeclarationSyntax
                         or EnumDeclarationSyntax))
            {
                ISymbol? symbol = node switch
                {
                    CompilationUnitSyntax unit when unit.Members.OfType<GlobalStatementSyntax>().Any() =>
                        model.GetDeclaredSymbol(unit, cancellationToken),
                    BaseTypeDeclarationSyntax or DelegateDeclarationSyntax or BaseMethodDeclarationSyntax or AccessorDeclarationSyntax
                        or BasePropertyDeclarationSyntax or EnumMemberDeclarationSyntax =>
                        model.GetDeclaredSymbol(node, cancellationToken),
                    VariableDeclaratorSyntax { Parent.Parent: BaseFieldDeclarationSyntax } =>
                        model.GetDeclaredSymbol(node, cancellationToken),
                    _ => null,
                };
                if (symbol is null)
                    continue;
                // A getter written as `=> expression`: the property's node is its body.
                if (node is PropertyDeclarationSyntax { ExpressionBody: not null } arrow && symbol is IPropertySymbol { GetMethod: { } getter })
                    declared.TryAdd(Key(getter), new Declared(getter, arrow));
                if (node is IndexerDeclarationSyntax { ExpressionBody: not null } indexer && symbol is IPropertySymbol { GetMethod: { } get })
                    declared.TryAdd(Key(get), new Declared(get, indexer));
                declared.TryAdd(Key(symbol), new Declared(symbol, node));
                // A record's or class's primary constructor is declared by the type.
                if (symbol is INamedTypeSymbol type && node is TypeDeclarationSyntax { ParameterList: not null })
                {
                    foreach (IMethodSymbol ctor in type.InstanceConstructors.Where(c => c.DeclaringSyntaxReferences
                                 .Any(r => r.GetSyntax(cancellationToken) == node)))
                        declared.TryAdd(Key(ctor), new Declared(ctor, node));
                }
            }
            return declared;
        }

        /// <summary>What a declaration stands for across versions: its kind, containing type,
        /// name, arity and parameter types (a static and an instance member are different).</summary>
        private static string Key(ISymbol symbol)
        {
            string container = symbol.ContainingType is { } type ? Key(type) : symbol.ContainingNamespace?.ToDisplayString() ?? "";
            string parameters = symbol switch
            {
                IMethodSymbol m => $"`{m.Arity}({string.Join(",", m.Parameters.Select(p => p.RefKind + " " + p.Type.ToDisplayString()))})" +
                                   (m.MethodKind is MethodKind.Conversion ? ":" + m.ReturnType.ToDisplayString() : ""),
                IPropertySymbol p => $"[{string.Join(",", p.Parameters.Select(x => x.RefKind + " " + x.Type.ToDisplayString()))}]",
                INamedTypeSymbol t => $"`{t.Arity}",
                _ => "",
            };
            return $"{container}/{symbol.Kind}:{(symbol.IsStatic ? "static " : "")}{symbol.MetadataName}{parameters}";
        }

        private static bool SameModifiers(ISymbol old, ISymbol now, out string? what)
        {
            what = old.DeclaredAccessibility != now.DeclaredAccessibility ? "accessibility"
                : old.IsVirtual != now.IsVirtual || old.IsOverride != now.IsOverride || old.IsAbstract != now.IsAbstract ||
                  old.IsSealed != now.IsSealed || old.IsExtern != now.IsExtern ? "virtual, override, abstract, sealed or extern modifier"
                : old is IMethodSymbol a && now is IMethodSymbol b && (a.ReturnsByRef != b.ReturnsByRef || a.IsReadOnly != b.IsReadOnly ||
                                                                      !SameType(a.ReturnType, b.ReturnType)) ? "return type"
                : old is IFieldSymbol f && now is IFieldSymbol g && (f.IsReadOnly != g.IsReadOnly || f.IsVolatile != g.IsVolatile ||
                                                                     f.IsConst != g.IsConst) ? "readonly, volatile or const modifier"
                : null;
            return what is null;
        }

        private static bool SameDefaults(IMethodSymbol old, IMethodSymbol now) =>
            old.Parameters.Zip(now.Parameters).All(p => p.First.HasExplicitDefaultValue == p.Second.HasExplicitDefaultValue &&
                (!p.First.HasExplicitDefaultValue || Equals(p.First.ExplicitDefaultValue, p.Second.ExplicitDefaultValue)));

        private static bool SameType(ITypeSymbol? a, ITypeSymbol? b) =>
            (a is null && b is null) || (a is not null && b is not null &&
                                         a.ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat) ==
                                         b.ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat));

        private static bool SameTypes(IEnumerable<ITypeSymbol> a, IEnumerable<ITypeSymbol> b) =>
            a.Select(t => t.ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat)).Order()
                .SequenceEqual(b.Select(t => t.ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat)).Order());

        private static bool SameConstraints(INamedTypeSymbol old, INamedTypeSymbol now) =>
            old.TypeParameters.Zip(now.TypeParameters).All(p =>
                p.First.HasReferenceTypeConstraint == p.Second.HasReferenceTypeConstraint &&
                p.First.HasValueTypeConstraint == p.Second.HasValueTypeConstraint &&
                p.First.HasConstructorConstraint == p.Second.HasConstructorConstraint &&
                p.First.HasUnmanagedTypeConstraint == p.Second.HasUnmanagedTypeConstraint &&
                p.First.Variance == p.Second.Variance &&
                SameTypes(p.First.ConstraintTypes, p.Second.ConstraintTypes));

        private static bool IsVirtualish(ISymbol symbol) => symbol.IsVirtual || symbol.IsAbstract || symbol.IsOverride;

        private static string Layout(INamedTypeSymbol type)
        {
            if (type.IsValueType)
                return "struct";
            AttributeData? layout = type.GetAttributes().FirstOrDefault(a =>
                a.AttributeClass?.ToDisplayString() == "System.Runtime.InteropServices.StructLayoutAttribute");
            return layout?.ConstructorArguments.FirstOrDefault().Value switch
            {
                0 => "sequential",
                2 => "explicit",
                _ => "auto",
            };
        }

        private static EqualsValueClauseSyntax? Initializer(SyntaxNode node) => node switch
        {
            VariableDeclaratorSyntax v => v.Initializer,
            PropertyDeclarationSyntax p => p.Initializer,
            _ => null,
        };

        private static ParameterListSyntax? PrimaryParameters(SyntaxNode node) => (node as TypeDeclarationSyntax)?.ParameterList;

        private static bool AttributesChanged(SyntaxNode old, SyntaxNode now)
        {
            SyntaxList<AttributeListSyntax> a = AttributeLists(old), b = AttributeLists(now);
            return a.Count != b.Count || a.Zip(b).Any(p => !p.First.IsEquivalentTo(p.Second, topLevel: false));
        }

        private static bool TypeAttributesChanged(SyntaxNode old, SyntaxNode now) => AttributesChanged(old, now);

        private static SyntaxList<AttributeListSyntax> AttributeLists(SyntaxNode node) => node switch
        {
            MemberDeclarationSyntax m => m.AttributeLists,
            AccessorDeclarationSyntax a => a.AttributeLists,
            VariableDeclaratorSyntax { Parent.Parent: BaseFieldDeclarationSyntax f } => f.AttributeLists,
            _ => default,
        };

        // ---------------------------------------------------------------- what people read

        private void Refuse(Declared declared, string why)
        {
            string member = Display(declared.Symbol);
            _refusals.Add(new EditRefusal(member, Where(declared.Node), $"{member}: {why}"));
        }

        private void Notice(ReloadNoticeKind kind, Declared declared, string what)
        {
            string member = Display(declared.Symbol);
            _notices.Add(new ReloadNotice(kind, member, $"{member}: {what}"));
        }

        private static string Where(SyntaxNode node)
        {
            FileLinePositionSpan span = node.GetLocation().GetLineSpan();
            return $"{Path.GetFileName(span.Path)}({span.StartLinePosition.Line + 1},{span.StartLinePosition.Character + 1})";
        }

    }

    /// <summary>A symbol as a refusal or notice names it: "Enemy.Score(int)".</summary>
    public static string Display(ISymbol symbol) =>
        symbol.ToDisplayString(SymbolDisplayFormat.CSharpShortErrorMessageFormat
            .WithMemberOptions(SymbolDisplayMemberOptions.IncludeContainingType | SymbolDisplayMemberOptions.IncludeParameters)
            .WithParameterOptions(SymbolDisplayParameterOptions.IncludeType));

    private sealed record Declared(ISymbol Symbol, SyntaxNode Node);

    private static bool IsAutoProperty(this IPropertySymbol property) =>
        property.ContainingType.GetMembers().OfType<IFieldSymbol>()
            .Any(f => SymbolEqualityComparer.Default.Equals(f.AssociatedSymbol, property));
}
