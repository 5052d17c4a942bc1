//! CSV reading: records, a row's cells by column name, numbers and bytes in cells.

/// Splits CSV text into records of fields (RFC 4180: fields in double quotes may
/// hold commas, newlines and doubled quotes).
pub fn read_csv(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => {
                if c == '\n' {
                    line += 1;
                }
                field.push(c);
            }
            (false, '"') if field.is_empty() => quoted = true,
            (false, '"') => return Err(format!("line {line}: a quote inside an unquoted field")),
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                line += 1;
                record.push(std::mem::take(&mut field));
                if record.iter().any(|f| !f.is_empty()) {
                    records.push(std::mem::take(&mut record));
                }
                record.clear();
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err(format!("line {line}: a quoted field is not closed"));
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}

/// One measurement row, by column name.
pub(super) struct Row<'a> {
    pub(super) header: &'a [String],
    pub(super) fields: &'a [String],
}

impl Row<'_> {
    pub(super) fn get(&self, column: &str) -> &str {
        self.header
            .iter()
            .position(|h| h == column)
            .and_then(|i| self.fields.get(i))
            .map_or("", |s| s.trim())
    }

    pub(super) fn lower(&self, column: &str) -> String {
        self.get(column).to_ascii_lowercase()
    }
}

/// The leading whole number of a cell ("8 (MQA)" → 8, "~6.75B" → none).
pub(super) fn first_number(text: &str) -> Option<u64> {
    let digits: String = text
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// The number after `marker` in a cell ("50257 (padded 50304)", "padded " → 50304).
pub(super) fn number_after(text: &str, marker: &str) -> Option<u64> {
    let at = text.find(marker)? + marker.len();
    first_number(&text[at..])
}

/// A measured value in bytes from the row's value and unit.
pub(super) fn measured_bytes(value: &str, unit: &str) -> Result<f64, String> {
    let value: f64 = value
        .trim()
        .parse()
        .map_err(|_| format!("value {value:?} is not a number"))?;
    let scale = match unit.split_whitespace().next().unwrap_or("") {
        "bytes" | "B" => 1.0,
        "MiB" => 1_048_576.0,
        "MB" => 1e6,
        "GiB" => 1_073_741_824.0,
        "GB" => 1e9,
        other => {
            return Err(format!(
                "unit {other:?} is not one of bytes, MiB, MB, GiB, GB"
            ));
        }
    };
    Ok(value * scale)
}
