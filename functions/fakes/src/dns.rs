//! A real DNS server for the verified-domain tests (docs/organizations-domains.md §1.1): the
//! hickory-server library on `127.0.0.1:<random port>` over UDP, answering from records the test
//! sets. A name the test never set is NXDOMAIN; a name set with no records answers NOERROR and
//! nothing; a name marked failing answers SERVFAIL. [`silent`] is a port that never answers.

use hickory_server::net::runtime::Time;
use hickory_server::proto::op::{Metadata, ResponseCode};
use hickory_server::proto::rr::rdata::TXT;
use hickory_server::proto::rr::{Name, RData, Record, RecordType};
use hickory_server::server::{Request, RequestHandler, ResponseHandler, ResponseInfo};
use hickory_server::zone_handler::MessageResponseBuilder;
use hickory_server::Server;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::net::UdpSocket;

/// What a name answers.
#[derive(Clone, Debug)]
enum Entry {
    /// TXT records, each a list of character strings.
    Txt(Vec<Vec<String>>),
    ServFail,
}

type Zone = Arc<Mutex<HashMap<String, Entry>>>;

fn key(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

struct Handler(Zone);

impl Handler {
    fn entry(&self, name: &str) -> Option<Entry> {
        let zone = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        zone.get(&key(name)).cloned()
    }
}

#[async_trait::async_trait]
impl RequestHandler for Handler {
    async fn handle_request<R: ResponseHandler, T: Time>(
        &self,
        request: &Request,
        mut response_handle: R,
    ) -> ResponseInfo {
        let mut metadata = Metadata::response_from_request(&request.metadata);
        metadata.authoritative = true;
        let builder = MessageResponseBuilder::from_message_request(request);
        let Ok(info) = request.request_info() else {
            metadata.response_code = ResponseCode::FormErr;
            return sent(
                response_handle
                    .send_response(builder.build_no_records(metadata))
                    .await,
            );
        };
        let qname = info.query.name().to_string();
        let qtype = info.query.query_type();
        let records: Vec<Record> = match self.entry(&qname) {
            None => {
                metadata.response_code = ResponseCode::NXDomain;
                Vec::new()
            }
            Some(Entry::ServFail) => {
                metadata.response_code = ResponseCode::ServFail;
                Vec::new()
            }
            Some(Entry::Txt(values)) if qtype == RecordType::TXT => {
                let Ok(name) = Name::from_ascii(&qname) else {
                    metadata.response_code = ResponseCode::ServFail;
                    return sent(
                        response_handle
                            .send_response(builder.build_no_records(metadata))
                            .await,
                    );
                };
                values
                    .into_iter()
                    .map(|strings| {
                        Record::from_rdata(name.clone(), 60, RData::TXT(TXT::new(strings)))
                    })
                    .collect()
            }
            Some(Entry::Txt(_)) => Vec::new(),
        };
        let response = builder.build(metadata, records.iter(), [], [], []);
        sent(response_handle.send_response(response).await)
    }
}

fn sent<E>(r: Result<ResponseInfo, E>) -> ResponseInfo {
    r.unwrap_or_else(|_| {
        let mut m = Metadata::new(
            0,
            hickory_server::proto::op::MessageType::Response,
            hickory_server::proto::op::OpCode::Query,
        );
        m.response_code = ResponseCode::ServFail;
        hickory_server::proto::op::Header {
            metadata: m,
            counts: Default::default(),
        }
        .into()
    })
}

/// A running DNS server; stops when dropped.
pub struct DnsServer {
    addr: SocketAddr,
    zone: Zone,
    _server: Server<Handler>,
}

impl DnsServer {
    /// Starts one on `127.0.0.1:<random port>`, with no names.
    pub async fn start() -> std::io::Result<DnsServer> {
        let socket = UdpSocket::bind("127.0.0.1:0").await?;
        let addr = socket.local_addr()?;
        let zone: Zone = Arc::default();
        let mut server = Server::new(Handler(zone.clone()));
        server.register_socket(socket);
        Ok(DnsServer {
            addr,
            zone,
            _server: server,
        })
    }

    /// Where it listens (UDP).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    fn set(&self, name: &str, entry: Entry) {
        let mut zone = self.zone.lock().unwrap_or_else(PoisonError::into_inner);
        zone.insert(key(name), entry);
    }

    /// `name`'s TXT records, one per value (each value one character string); an empty list
    /// makes the name exist with no TXT records.
    pub fn set_txt(&self, name: &str, values: &[&str]) {
        let records = values.iter().map(|v| vec![(*v).to_owned()]).collect();
        self.set(name, Entry::Txt(records));
    }

    /// One TXT record of several character strings (as long values are published).
    pub fn set_txt_strings(&self, name: &str, strings: &[&str]) {
        let record = strings.iter().map(|s| (*s).to_owned()).collect();
        self.set(name, Entry::Txt(vec![record]));
    }

    /// `name` answers SERVFAIL.
    pub fn fail(&self, name: &str) {
        self.set(name, Entry::ServFail);
    }

    /// `name` no longer exists (NXDOMAIN).
    pub fn remove(&self, name: &str) {
        let mut zone = self.zone.lock().unwrap_or_else(PoisonError::into_inner);
        zone.remove(&key(name));
    }
}

/// A UDP port that receives and never answers: a resolver asking it times out. Keep the socket
/// while the test runs.
pub async fn silent() -> std::io::Result<(SocketAddr, UdpSocket)> {
    let socket = UdpSocket::bind("127.0.0.1:0").await?;
    Ok((socket.local_addr()?, socket))
}
