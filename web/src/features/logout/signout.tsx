// Placeholder: replaced by the real screen.
export default function Screen() {
  return <div className="card" data-screen="signout" />;
}
